// The body of POST /v1/media/inputs: raw bytes, hashed and counted as they arrive. A video is kept
// whole (at most 500 MiB, else 413); of an image only the head is kept, enough for sniffing and
// dimensions, since "no separate per-image byte cap" exists and the 10 GiB quota bounds the rest.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import type { RefContext } from '../context.ts';

export const INPUT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4'];
export const VIDEO_MAX_BYTES = 500 * 1024 * 1024;
const IMAGE_HEAD_BYTES = 32 * 1024 * 1024;
const OCTET_STREAM = 'application/octet-stream';

export interface Upload {
  kind: 'upload';
  declared: string;
  /** All bytes of a video; the first bytes of an image. */
  bytes: Buffer;
  size: number;
  sha256: string;
}

export const isUpload = (body: unknown): body is Upload => (body as Upload | undefined)?.kind === 'upload';

const httpError = (statusCode: number, message: string) => Object.assign(new Error(message), { statusCode });

export function essence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function registerUploadParser(app: FastifyInstance, ctx: RefContext): void {
  // Fault upload-octet-stream: application/octet-stream is taken too, and typed by its bytes below.
  const types = ctx.fault === 'upload-octet-stream' ? [...INPUT_TYPES, OCTET_STREAM] : INPUT_TYPES;
  app.addContentTypeParser(types, (request, payload, done) => {
    const declared = essence(request.headers['content-type']);
    const length = request.headers['content-length'];
    const refuse = (error: Error) => {
      payload.resume();
      done(error, undefined);
    };
    if (length === undefined)
      return refuse(httpError(400, 'Content-Length is required: send the byte count.'));
    if (declared === 'video/mp4' && Number(length) > VIDEO_MAX_BYTES)
      return refuse(httpError(413, 'A video file is at most 500 MiB.'));
    // Fault image-byte-cap: images over 16 MiB refused, a cap of their own.
    // Faults jpeg-byte-cap and webp-byte-cap: the same for one image type.
    const capped =
      (ctx.fault === 'image-byte-cap' && declared !== 'video/mp4') ||
      (ctx.fault === 'jpeg-byte-cap' && declared === 'image/jpeg') ||
      (ctx.fault === 'webp-byte-cap' && declared === 'image/webp');
    // Answered once the body is read: a refusal sent while the client still sends 17 MiB or more can
    // reach it as a reset connection on a loaded machine, not as the 413 the fault is about.
    if (capped && Number(length) > 16 * 1024 * 1024) {
      payload.once('end', () => done(httpError(413, 'An image is at most 16 MiB.'), undefined));
      payload.once('error', (error) => done(error, undefined));
      payload.resume();
      return;
    }
    const keep = declared === 'video/mp4' ? VIDEO_MAX_BYTES : IMAGE_HEAD_BYTES;
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let size = 0;
    let kept = 0;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      hash.update(chunk);
      if (kept < keep) {
        const part = chunk.subarray(0, keep - kept);
        chunks.push(part);
        kept += part.length;
      }
    });
    payload.on('error', (error) => done(error, undefined));
    payload.on('end', () => {
      if (size !== Number(length))
        return done(httpError(400, 'Content-Length must equal the byte count.'), undefined);
      const upload: Upload = {
        kind: 'upload',
        declared,
        bytes: Buffer.concat(chunks),
        size,
        sha256: hash.digest('hex'),
      };
      if (declared !== OCTET_STREAM) return done(null, upload);
      // The sniffed type stands in for the declared one where it is one of the four.
      fileTypeFromBuffer(upload.bytes).then(
        (t) => done(null, { ...upload, declared: t && INPUT_TYPES.includes(t.mime) ? t.mime : declared }),
        (error: Error) => done(error, undefined),
      );
    });
  });
}
