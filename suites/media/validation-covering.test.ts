// Job acceptance of the documented models: every valid value of each model's covering design of jobs is
// accepted (billable: the jobs are bought; the run announces what before it starts).
// @conformance start-early 2
// @conformance media-acceptance
import { coveringTests } from './validation.ts';

coveringTests();
