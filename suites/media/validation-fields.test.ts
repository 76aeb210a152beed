// Job validation of the documented models, their fields: the acknowledgement, top-level fields beyond the
// contract's, never-accepted and unsupported parameter names, each from the contract's model table
// (fixtures/media-models.yaml).
// @conformance start-early 3
import { fieldTests } from './validation.ts';

fieldTests();
