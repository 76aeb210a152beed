// Job validation of the documented models whose output is not an image (video, 3D model, or not shown).
import { documentedIds, table } from './support.ts';
import { validationTests } from './validation.ts';

validationTests(documentedIds.filter((id) => table.models[id]!.output !== 'image'));
