// The images of more than 32 MiB that MIN-014 uploads (suites/media/big-images.ts) are valid files of
// their type: a decoder that refused them would make the test fail a conformant deployment. Checked here
// by their structure (dwebp, webpinfo -diag and djpeg took them without warning when they were made).
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BIG_IMAGES } from '../../suites/media/big-images.ts';

const of = (type: string) => {
  const image = BIG_IMAGES.find((i) => i.type === type);
  if (!image) throw new Error(`no big ${type}`);
  return image.make();
};
const MORE_THAN_32_MIB = 32 * 1024 * 1024;

describe('the big images of MIN-014', () => {
  it('has one image per image type an upload takes', () => {
    expect(BIG_IMAGES.map((i) => i.type).sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
  });

  it('PNG: the signature, chunks whose CRCs hold, IHDR first and IEND last', () => {
    const b = of('image/png');
    expect(b.length).toBeGreaterThan(MORE_THAN_32_MIB);
    expect(b.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const types: string[] = [];
    let at = 8;
    while (at < b.length) {
      const length = b.readUInt32BE(at);
      types.push(b.toString('latin1', at + 4, at + 8));
      expect(crc32(b.subarray(at + 4, at + 8 + length))).toBe(b.readUInt32BE(at + 8 + length));
      at += 12 + length;
    }
    expect(at).toBe(b.length);
    expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect([b.readUInt32BE(16), b.readUInt32BE(20)]).toEqual([4096, 2048]);
  });

  it('JPEG: marker segments from SOI, the frame header before the comments, the scan, EOI at the end', () => {
    const b = of('image/jpeg');
    expect(b.length).toBeGreaterThan(MORE_THAN_32_MIB);
    expect(b.readUInt16BE(0)).toBe(0xffd8);
    const markers: number[] = [];
    let at = 2;
    while (b[at] === 0xff && b[at + 1] !== 0xda) {
      markers.push(b[at + 1]!);
      at += 2 + b.readUInt16BE(at + 2);
    }
    expect(b[at + 1]).toBe(0xda);
    const comments = markers.filter((m) => m === 0xfe).length;
    expect(comments).toBeGreaterThan(500);
    // The frame header (SOF0) comes before every comment, so the dimensions are in the first bytes.
    expect(markers.indexOf(0xc0)).toBe(markers.indexOf(0xfe) - 1);
    expect(b.readUInt16BE(b.length - 2)).toBe(0xffd9);
  });

  it('WebP: the RIFF size, VP8X first with the XMP flag, chunks to the end, the XMP packet closed', () => {
    const b = of('image/webp');
    expect(b.length).toBeGreaterThan(MORE_THAN_32_MIB);
    expect(b.toString('latin1', 0, 4)).toBe('RIFF');
    expect(b.readUInt32LE(4)).toBe(b.length - 8);
    expect(b.toString('latin1', 8, 12)).toBe('WEBP');
    const chunks: string[] = [];
    let at = 12;
    while (at < b.length) {
      const length = b.readUInt32LE(at + 4);
      chunks.push(b.toString('latin1', at, at + 4));
      at += 8 + length + (length & 1);
    }
    expect(at).toBe(b.length);
    expect(chunks[0]).toBe('VP8X');
    expect(chunks.at(-1)).toBe('XMP ');
    expect(b[20]! & 0x04).toBe(0x04);
    expect(b.toString('latin1', b.length - 19)).toBe('<?xpacket end="w"?>');
  });
});
