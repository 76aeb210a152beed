import { upload } from '../../media-jobs.ts';
import { type AccountModel, nextLabel } from '../account-state.ts';
import { is2xx, newKey, type Real } from '../real.ts';
import { Step } from './step.ts';

/** Sample media the sequences upload: small images, and one video usable as a video reference. */
export const UPLOAD_FILES = ['png-64x48.png', 'jpeg-64x48.jpg', 'webp-64x48.webp', 'h264-2s.mp4'] as const;

/** POST /v1/media/inputs with a new Idempotency-Key; the input is deleted when the test ends. */
export class UploadInput extends Step {
  constructor(readonly file: (typeof UPLOAD_FILES)[number]) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return m.inputs.length < 6;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const key = newKey('upload');
    const u = await upload(r.t, this.file, { idempotencyKey: key });
    // A refusal is judged by the fixed upload tests; the model only follows what exists.
    if (!u.id || !is2xx(u.res.status)) return;
    const label = nextLabel('input', m.inputs);
    this.target = label;
    m.inputs.push({
      label,
      id: u.id,
      file: this.file,
      kind: this.file.endsWith('.mp4') ? 'video' : 'image',
      key,
      deleted: false,
    });
  }

  toString(): string {
    return `upload ${this.file}${this.target ? ` as ${this.target}` : ''}`;
  }
}
