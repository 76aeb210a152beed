// Job validation of the documented image models: acknowledgement, extra fields, prompt rules, parameters
// and sizes, each from the contract's model table (fixtures/media-models.yaml).
import { documentedIds, table } from './support.ts';
import { validationTests } from './validation.ts';

validationTests(documentedIds.filter((id) => table.models[id]!.output === 'image'));
