// Job validation of the documented models, their parameters: every value outside each stated parameter's
// set, ranges and sizes (fixtures/media-models.yaml).
// @conformance start-early 3
import { parameterTests } from './validation.ts';

parameterTests();
