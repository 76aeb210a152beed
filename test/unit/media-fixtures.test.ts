import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pkgPath } from '../../src/paths.ts';

// The sample media are generated once with ffmpeg (fixtures/media/generate.sh) and committed; these
// tests read the bytes themselves so that a wrong manifest entry or a damaged file is caught without ffmpeg.

const REAL_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4', 'text/plain'] as const;
const DECLARED_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4'] as const;
const CODECS = ['h264', 'hevc', 'mpeg4'] as const;
const FORMATS = [
  'png-rgb',
  'png-rgba',
  'jpeg-baseline',
  'jpeg-progressive',
  'webp-lossy',
  'webp-lossless',
  'webp-lossy-alpha',
  'mp4-moov-first',
  'mp4-moov-last',
  'text',
] as const;
type RealType = (typeof REAL_TYPES)[number];
type Codec = (typeof CODECS)[number];
type Format = (typeof FORMATS)[number];

interface MediaEntry {
  file: string;
  real_type: RealType;
  declared_type: (typeof DECLARED_TYPES)[number];
  format: Format;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  video_codec: Codec | null;
  audio: boolean;
  bytes: number;
  sha256: string;
  purpose: string;
}

const nullableInt = { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] };
const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['files'],
  properties: {
    files: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'file',
          'real_type',
          'declared_type',
          'format',
          'width',
          'height',
          'duration_ms',
          'video_codec',
          'audio',
          'bytes',
          'sha256',
          'purpose',
        ],
        properties: {
          file: { type: 'string', pattern: '^[a-z0-9.-]+$' },
          real_type: { enum: [...REAL_TYPES] },
          declared_type: { enum: [...DECLARED_TYPES] },
          format: { enum: [...FORMATS] },
          width: nullableInt,
          height: nullableInt,
          duration_ms: nullableInt,
          video_codec: { enum: [...CODECS, null] },
          audio: { type: 'boolean' },
          bytes: { type: 'integer', minimum: 1 },
          sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          purpose: { type: 'string', minLength: 3, maxLength: 160 },
        },
      },
    },
  },
};

const NOT_MEDIA = new Set(['README.md', 'manifest.yaml', 'generate.sh', 'manifest.sh']);
const TYPE_BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.mp4': 'video/mp4',
};
const CODEC_BY_SAMPLE_ENTRY: Record<string, Codec> = {
  avc1: 'h264',
  avc3: 'h264',
  hvc1: 'hevc',
  hev1: 'hevc',
  mp4v: 'mpeg4',
};

const mediaPath = (file: string): string => pkgPath('fixtures', 'media', file);
const manifest = parse(readFileSync(mediaPath('manifest.yaml'), 'utf8')) as { files: MediaEntry[] };

const ascii = (buf: Buffer, start: number, end: number): string => buf.toString('latin1', start, end);

function sniff(buf: Buffer): RealType | 'unknown' {
  if (buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(buf, 4, 8) === 'ftyp') return 'video/mp4';
  const printable = buf.every((b) => (b >= 0x20 ? b !== 0x7f : b === 0x09 || b === 0x0a || b === 0x0d));
  if (printable && isUtf8(buf)) return 'text/plain';
  return 'unknown';
}

interface Size {
  width: number;
  height: number;
}

function pngSize(buf: Buffer): Size {
  expect(ascii(buf, 12, 16), 'first PNG chunk').toBe('IHDR');
  expect(ascii(buf, buf.length - 8, buf.length - 4), 'last PNG chunk').toBe('IEND');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** The size of the first JPEG frame header (SOFn) and whether it is progressive (SOF2, SOF6, SOF10, SOF14). */
function jpegFrame(buf: Buffer): Size & { progressive: boolean } {
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) throw new Error(`JPEG marker expected at ${i}`);
    const marker = buf[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const isFrameHeader = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrameHeader)
      return {
        height: buf.readUInt16BE(i + 5),
        width: buf.readUInt16BE(i + 7),
        progressive: [0xc2, 0xc6, 0xca, 0xce].includes(marker),
      };
    i += 2 + buf.readUInt16BE(i + 2);
  }
  throw new Error('no JPEG frame header (SOFn)');
}

function webpSize(buf: Buffer): Size {
  const chunk = ascii(buf, 12, 16);
  if (chunk === 'VP8 ') {
    expect([...buf.subarray(23, 26)], 'VP8 start code').toEqual([0x9d, 0x01, 0x2a]);
    return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    const bits = buf.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: buf.readUIntLE(24, 3) + 1, height: buf.readUIntLE(27, 3) + 1 };
  throw new Error(`unknown WebP chunk ${chunk}`);
}

interface Box {
  type: string;
  start: number;
  body: number;
  end: number;
}

function boxes(buf: Buffer, start: number, end: number): Box[] {
  const out: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = buf.readUInt32BE(offset);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) size = end - offset;
    const type = ascii(buf, offset + 4, offset + 8);
    if (size < header || offset + size > end) throw new Error(`box ${type} at ${offset} overruns its parent`);
    out.push({ type, start: offset, body: offset + header, end: offset + size });
    offset += size;
  }
  return out;
}

function child(buf: Buffer, parent: Box, ...path: string[]): Box {
  let box = parent;
  for (const type of path) {
    const found = boxes(buf, box.body, box.end).find((b) => b.type === type);
    if (!found) throw new Error(`no ${type} box inside ${box.type}`);
    box = found;
  }
  return box;
}

interface Mp4Facts {
  durationMs: number;
  videoCodec: string | null;
  size: Size | null;
  audio: boolean;
  moovBeforeMdat: boolean;
}

function mp4Facts(buf: Buffer): Mp4Facts {
  const top = boxes(buf, 0, buf.length);
  const moov = top.find((b) => b.type === 'moov');
  const mdat = top.find((b) => b.type === 'mdat');
  if (!moov || !mdat) throw new Error('no moov or mdat box');

  const mvhd = child(buf, moov, 'mvhd');
  const version = buf[mvhd.body];
  const timescale = buf.readUInt32BE(mvhd.body + (version === 1 ? 20 : 12));
  const duration =
    version === 1 ? Number(buf.readBigUInt64BE(mvhd.body + 24)) : buf.readUInt32BE(mvhd.body + 16);

  let videoCodec: string | null = null;
  let size: Size | null = null;
  let audio = false;
  for (const trak of boxes(buf, moov.body, moov.end).filter((b) => b.type === 'trak')) {
    const hdlr = child(buf, trak, 'mdia', 'hdlr');
    const handler = ascii(buf, hdlr.body + 8, hdlr.body + 12);
    if (handler === 'soun') audio = true;
    if (handler === 'vide' && videoCodec === null) {
      const stsd = child(buf, trak, 'mdia', 'minf', 'stbl', 'stsd');
      const entry = boxes(buf, stsd.body + 8, stsd.end)[0];
      if (!entry) throw new Error('empty stsd box');
      videoCodec = entry.type;
      size = { width: buf.readUInt16BE(entry.body + 24), height: buf.readUInt16BE(entry.body + 26) };
    }
  }
  return {
    durationMs: Math.round((duration * 1000) / timescale),
    videoCodec,
    size,
    audio,
    moovBeforeMdat: moov.start < mdat.start,
  };
}

function imageSize(type: RealType, buf: Buffer): Size {
  if (type === 'image/png') return pngSize(buf);
  if (type === 'image/jpeg') {
    const { width, height } = jpegFrame(buf);
    return { width, height };
  }
  return webpSize(buf);
}

/** The coding of the bytes, read from them: PNG colour type, JPEG frame kind, WebP chunks, MP4 box order. */
function formatOf(type: RealType, buf: Buffer): Format {
  if (type === 'text/plain') return 'text';
  if (type === 'video/mp4') return mp4Facts(buf).moovBeforeMdat ? 'mp4-moov-first' : 'mp4-moov-last';
  if (type === 'image/png') {
    const colour = buf[25];
    expect([2, 6], 'PNG colour type (2 RGB, 6 RGBA)').toContain(colour);
    return colour === 6 ? 'png-rgba' : 'png-rgb';
  }
  if (type === 'image/jpeg') return jpegFrame(buf).progressive ? 'jpeg-progressive' : 'jpeg-baseline';
  const chunk = ascii(buf, 12, 16);
  if (chunk === 'VP8L') return 'webp-lossless';
  if (chunk === 'VP8 ') return 'webp-lossy';
  const chunks = riffChunks(buf).map((c) => c.type);
  expect(chunks, 'VP8X chunks').toEqual(expect.arrayContaining(['ALPH', 'VP8 ']));
  return 'webp-lossy-alpha';
}

/** The chunks of a RIFF WebP file after its header (little-endian sizes, padded to even lengths). */
function riffChunks(buf: Buffer): Array<{ type: string; size: number }> {
  const out: Array<{ type: string; size: number }> = [];
  for (let at = 12; at + 8 <= buf.length; ) {
    const size = buf.readUInt32LE(at + 4);
    out.push({ type: ascii(buf, at, at + 4), size });
    at += 8 + size + (size % 2);
  }
  return out;
}

describe('sample media in fixtures/media', () => {
  it('manifest.yaml has the documented shape, one entry per media file', () => {
    const validate = new Ajv({ allErrors: true }).compile(schema);
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
    const listed = manifest.files.map((e) => e.file);
    const present = readdirSync(pkgPath('fixtures', 'media')).filter((f) => !NOT_MEDIA.has(f));
    expect(new Set(listed).size, 'unique file names').toBe(listed.length);
    expect(new Set(manifest.files.map((e) => e.sha256)).size, 'unique contents').toBe(listed.length);
    expect([...listed].sort()).toEqual([...present].sort());
  });

  it.for(manifest.files)('$file matches its manifest entry', (entry) => {
    const buf = readFileSync(mediaPath(entry.file));
    expect(buf.length, 'bytes').toBe(entry.bytes);
    expect(createHash('sha256').update(buf).digest('hex'), 'sha256').toBe(entry.sha256);
    expect(sniff(buf), 'real type from magic bytes').toBe(entry.real_type);
    expect(entry.declared_type, 'declared type follows the file name').toBe(
      TYPE_BY_EXTENSION[extname(entry.file)],
    );
    expect(formatOf(entry.real_type, buf), 'format read from the bytes').toBe(entry.format);

    if (entry.real_type === 'text/plain') {
      expect([entry.width, entry.height, entry.duration_ms, entry.video_codec]).toEqual([
        null,
        null,
        null,
        null,
      ]);
      expect(entry.audio).toBe(false);
    } else if (entry.real_type === 'video/mp4') {
      const facts = mp4Facts(buf);
      expect(facts.durationMs, 'mvhd duration in ms').toBe(entry.duration_ms);
      const codec = facts.videoCodec === null ? null : (CODEC_BY_SAMPLE_ENTRY[facts.videoCodec] ?? null);
      expect(codec, `codec of stsd sample entry ${facts.videoCodec}`).toBe(entry.video_codec);
      expect(facts.size, 'visual sample entry size').toEqual({ width: entry.width, height: entry.height });
      expect(facts.audio, 'audio track (hdlr soun)').toBe(entry.audio);
    } else {
      expect(imageSize(entry.real_type, buf), 'image size from the header').toEqual({
        width: entry.width,
        height: entry.height,
      });
      expect([entry.duration_ms, entry.video_codec, entry.audio]).toEqual([0, null, false]);
    }
  });

  it('covers the bounds of media inputs and of video references for wc-100016', () => {
    const ok = manifest.files.filter((e) => e.real_type === e.declared_type);
    const videos = ok.filter((e) => e.video_codec === 'h264' && !e.audio).map((e) => e.duration_ms ?? -1);
    const edges = ok
      .filter((e) => e.real_type.startsWith('image/'))
      .map((e) => Math.max(e.width!, e.height!));
    expect(videos.some((d) => d < 1000)).toBe(true);
    expect(videos).toContain(1000);
    expect(videos.some((d) => d > 1000 && d < 1800)).toBe(true);
    expect(videos.some((d) => d >= 1800 && d <= 30000)).toBe(true);
    expect(videos).toContain(30000);
    expect(videos.some((d) => d > 30000)).toBe(true);
    // The edges of wc-100016's usable reference window (1.8 to 30 s), 10 ms under its minimum, and
    // over the upload maximum by less than a second.
    expect(videos).toEqual(expect.arrayContaining([1790, 1800, 30000]));
    expect(videos.some((d) => d > 30000 && d < 31000)).toBe(true);
    expect(videos.some((d) => d % 1000 !== 0)).toBe(true);
    expect(edges).toEqual(expect.arrayContaining([1, 8192, 8193]));
    expect(ok.some((e) => e.audio)).toBe(true);
    expect(ok.some((e) => e.real_type === 'video/mp4' && e.video_codec !== 'h264')).toBe(true);
    expect(manifest.files.filter((e) => e.real_type !== e.declared_type)).toHaveLength(4);
  });

  it('spans the codings of each format among the files a server must accept', () => {
    const ok = manifest.files.filter((e) => e.real_type === e.declared_type && e.video_codec !== 'hevc');
    expect(new Set(ok.map((e) => e.format))).toEqual(new Set(FORMATS.filter((f) => f !== 'text')));
  });
});
