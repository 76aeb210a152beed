/**
 * Images of more than 32 MiB in each image type an upload takes ("`Content-Type` equal to the file's media
 * type (image/png, image/jpeg, image/webp or video/mp4)"), past the byte caps common upstreams put on
 * images (20 MiB and less), for "no separate per-image byte cap" (MIN-014). Each is a valid file of its
 * type whose edges are within "image edge 1 to 8192"; each is made when its test asks, never kept.
 */
import { crc32, deflateSync } from 'node:zlib';
import { sample } from '../../src/suite/index.ts';

/** More than 32 MiB. */
const LEAST_BYTES = 32 * 1024 * 1024 + 1;

export interface BigImage {
  /** The declared type, as the upload's Content-Type. */
  type: 'image/png' | 'image/jpeg' | 'image/webp';
  /** What the image is, for the test's messages. */
  what: string;
  /** The sample it is made from (the upload's file name). */
  file: string;
  make: () => Buffer;
}

/** A PNG of 4096 x 2048 RGBA pixels stored without compression: its bytes are its pixels. */
function png(): Buffer {
  const [width, height] = [4096, 2048];
  const row = 1 + width * 4;
  // Each row (filter byte 0, then a gradient of opaque pixels) the same.
  const line = Buffer.alloc(row);
  for (let x = 0; x < width; x++) line.writeUInt32BE(((((x * 31) & 0xffffff) << 8) | 0xff) >>> 0, 1 + x * 4);
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) line.copy(raw, y * row);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const chunks: Array<[string, Buffer]> = [
    ['IHDR', ihdr],
    ['IDAT', deflateSync(raw, { level: 0 })],
    ['IEND', Buffer.alloc(0)],
  ];
  // One buffer for the file, each chunk written into it once (its length, type, data and CRC): the
  // 32 MiB of pixels are not copied again to be checksummed or joined.
  const out = Buffer.allocUnsafe(8 + chunks.reduce((n, [, data]) => n + 12 + data.length, 0));
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let at = 8;
  for (const [type, data] of chunks) {
    const name = Buffer.from(type, 'latin1');
    at = out.writeUInt32BE(data.length, at);
    at += name.copy(out, at);
    at += data.copy(out, at);
    at = out.writeUInt32BE(crc32(data, crc32(name)), at);
  }
  return out;
}

/** Filler text of `n` bytes. */
const filler = (n: number) => Buffer.alloc(n, 'conformance: no separate per-image byte cap. ');

/**
 * The 64 x 48 baseline JPEG sample with comment segments (COM, each at most 65,533 bytes of text) between
 * its frame header and its scan, where JPEG allows "tables or miscellaneous" segments: a decoder skips
 * them, and the dimensions stay in the file's first bytes.
 */
export function paddedJpeg(file: string, least = LEAST_BYTES): Buffer {
  const data = sample(file).data;
  let at = 2;
  // Walk the marker segments (each 0xFF, a marker, a 16-bit length counting itself) to the scan (SOS).
  while (at + 4 <= data.length && data[at] === 0xff && data[at + 1] !== 0xda)
    at += 2 + data.readUInt16BE(at + 2);
  if (data[at] !== 0xff || data[at + 1] !== 0xda) throw new Error(`${file}: no start of scan found`);
  const parts: Buffer[] = [data.subarray(0, at)];
  let bytes = data.length;
  while (bytes < least) {
    const text = filler(Math.max(1, Math.min(65_533, least - bytes - 4)));
    const head = Buffer.from([0xff, 0xfe, 0, 0]);
    head.writeUInt16BE(text.length + 2, 2);
    parts.push(head, text);
    bytes += head.length + text.length;
  }
  parts.push(data.subarray(at));
  return Buffer.concat(parts);
}

/**
 * The 40 x 30 WebP sample in the extended format (a VP8X chunk first) with an XMP chunk after its image
 * (the VP8X flag for it set): an empty XMP packet whose padding (whitespace, which packets may carry for
 * in-place edits) makes the size. The dimensions stay in the VP8X chunk at the start.
 */
function webp(file: string): Buffer {
  const data = Buffer.from(sample(file).data);
  if (data.toString('latin1', 0, 4) !== 'RIFF' || data.toString('latin1', 12, 16) !== 'VP8X')
    throw new Error(`${file}: not a WebP file in the extended format`);
  data[20] = data[20]! | 0x04;
  const open =
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>\n';
  const close = '<?xpacket end="w"?>';
  const openBytes = Buffer.byteLength(open);
  const pad = LEAST_BYTES - data.length - 8 - openBytes - close.length;
  // Lines of 99 spaces and a newline, and one space more where the chunk would be odd (RIFF pads odd
  // chunks): written into the file's one buffer, not made as a 32 MiB string first.
  const lines = 100 * (Math.ceil(pad / 100) + 1);
  const odd = (openBytes + lines + close.length) % 2;
  const size = openBytes + lines + odd + close.length;
  const out = Buffer.allocUnsafe(data.length + 8 + size);
  let at = data.copy(out, 0);
  at += out.write('XMP ', at, 'latin1');
  at = out.writeUInt32LE(size, at);
  at += out.write(open, at, 'utf8');
  out.fill(`${' '.repeat(99)}\n`, at, at + lines, 'latin1');
  at += lines;
  if (odd) out[at++] = 0x20;
  out.write(close, at, 'latin1');
  out.writeUInt32LE(out.length - 8, 4);
  return out;
}

/**
 * An H.264 MP4 sample with a `free` box after its other boxes, so that the file has at least `least`
 * bytes: a reader skips free boxes, and the video (its duration, its codec) is the sample's.
 */
export function paddedMp4(file: string, least: number): Buffer {
  const data = sample(file).data;
  const pad = Math.max(8, least - data.length);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(pad, 0);
  head.write('free', 4, 'latin1');
  return Buffer.concat([data, head, Buffer.alloc(pad - 8)]);
}

export const BIG_IMAGES: readonly BigImage[] = [
  {
    type: 'image/png',
    what: 'a PNG of 4096x2048 pixels stored without compression',
    file: 'png-64x48.png',
    make: png,
  },
  {
    type: 'image/jpeg',
    what: 'the 64x48 baseline JPEG with comment segments before its scan',
    file: 'jpeg-64x48.jpg',
    make: () => paddedJpeg('jpeg-64x48.jpg'),
  },
  {
    type: 'image/webp',
    what: 'the 40x30 extended WebP with a padded XMP packet after its image',
    file: 'webp-alpha-40x30.webp',
    make: () => webp('webp-alpha-40x30.webp'),
  },
];
