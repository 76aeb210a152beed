// What an uploaded file really is: its type sniffed from the bytes (file-type), the pixels of an
// image (image-size) and the duration, codec and pixels of an MP4's video track (mp4box, GPAC's
// parser). Measuring never refuses; media-inputs.ts judges the result.
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { createFile, MP4BoxBuffer } from 'mp4box';

export interface Measured {
  /** The sniffed media type; undefined when the bytes match no known type. */
  realType: string | undefined;
  width?: number;
  height?: number;
  durationMs?: number;
  /** The video track's codec string (avc1.64000a, hvc1...), for MP4 only. */
  codec?: string;
  /**
   * The coding within the type, where a format has several: jpeg-progressive, webp-lossless,
   * webp-alpha, png-alpha, mp4-moov-last (undefined for the others). Conformant uploads accept every
   * coding; the faults upload-refuses-* and *-alpha-refused refuse one.
   */
  coding?: string;
}

export async function measure(bytes: Buffer, declared: string): Promise<Measured> {
  const realType = (await fileTypeFromBuffer(bytes))?.mime;
  const coding = realType ? codingOf(realType, bytes) : undefined;
  const withCoding = coding ? { coding } : {};
  // Only real MP4 bytes are parsed (mp4box logs every box it cannot read).
  if (declared === 'video/mp4')
    return realType === 'video/mp4' ? { realType, ...mp4Info(bytes), ...withCoding } : { realType };
  try {
    const { width, height } = imageSize(bytes);
    return { realType, width, height, ...withCoding };
  } catch {
    return { realType };
  }
}

/** The coding of a PNG, JPEG, WebP or MP4 where the format has several (see Measured.coding). */
function codingOf(type: string, bytes: Buffer): string | undefined {
  const tag = (at: number) => bytes.toString('latin1', at, at + 4);
  if (type === 'image/png') return bytes[25] === 4 || bytes[25] === 6 ? 'png-alpha' : undefined;
  if (type === 'image/webp') {
    if (tag(12) === 'VP8L') return 'webp-lossless';
    // VP8X flags: bit 4 marks an alpha channel.
    return tag(12) === 'VP8X' && ((bytes[20] ?? 0) & 0x10) !== 0 ? 'webp-alpha' : undefined;
  }
  if (type === 'image/jpeg') {
    for (let i = 2; i + 4 <= bytes.length; ) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1] ?? 0;
      if (marker === 0xff) {
        i += 1;
        continue;
      }
      if ([0xc2, 0xc6, 0xca, 0xce].includes(marker)) return 'jpeg-progressive';
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return undefined;
      i += 2 + bytes.readUInt16BE(i + 2);
    }
    return undefined;
  }
  if (type === 'video/mp4') {
    // The top-level boxes in order: mdat before moov is a file without faststart.
    for (let at = 0; at + 8 <= bytes.length; ) {
      if (tag(at + 4) === 'moov') return undefined;
      if (tag(at + 4) === 'mdat') return 'mp4-moov-last';
      const size = bytes.readUInt32BE(at);
      if (size < 8) return undefined;
      at += size;
    }
  }
  return undefined;
}

interface Mp4Track {
  codec: string;
  video?: { width: number; height: number };
}

function mp4Info(bytes: Buffer): Omit<Measured, 'realType'> {
  const file = createFile();
  let info: { duration: number; timescale: number; videoTracks: Mp4Track[] } | undefined;
  file.onReady = (i) => {
    info = i as unknown as typeof info;
  };
  file.onError = () => {};
  try {
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(copy, 0));
    file.flush();
  } catch {
    return {};
  }
  const track = info?.videoTracks[0];
  if (!info || !track || !info.timescale) return {};
  return {
    durationMs: Math.round((info.duration * 1000) / info.timescale),
    codec: track.codec,
    width: track.video?.width,
    height: track.video?.height,
  };
}

export const isH264 = (codec: string | null | undefined): boolean => /^avc[13]\b/.test(codec ?? '');
