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
}

export async function measure(bytes: Buffer, declared: string): Promise<Measured> {
  const realType = (await fileTypeFromBuffer(bytes))?.mime;
  // Only real MP4 bytes are parsed (mp4box logs every box it cannot read).
  if (declared === 'video/mp4')
    return realType === 'video/mp4' ? { realType, ...mp4Info(bytes) } : { realType };
  try {
    const { width, height } = imageSize(bytes);
    return { realType, width, height };
  } catch {
    return { realType };
  }
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
