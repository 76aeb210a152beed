// Job validation of the documented models, their prompts: generated prompts outside each model's stated
// bounds (fixtures/media-models.yaml).
// @conformance start-early 3
import { promptTests } from './validation.ts';

promptTests();
