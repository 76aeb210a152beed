// The bytes of a job's output asset: small real files of fixtures/media for images (in the requested
// format) and video, and a minimal binary glTF 2.0 (GLB) for wc-100018's 3D model.
import { readFileSync } from 'node:fs';

const sample = (file: string) => readFileSync(new URL(`../../fixtures/media/${file}`, import.meta.url));

const IMAGES: Record<string, { type: string; bytes: Buffer }> = {
  png: { type: 'image/png', bytes: sample('png-64x48.png') },
  jpeg: { type: 'image/jpeg', bytes: sample('jpeg-64x48.jpg') },
  webp: { type: 'image/webp', bytes: sample('webp-64x48.webp') },
};
const VIDEO = { type: 'video/mp4', bytes: sample('h264-2s.mp4') };
const GLB = { type: 'model/gltf-binary', bytes: glb() };

export function outputFile(
  output: 'image' | 'video' | 'glb',
  format: string,
): { type: string; bytes: Buffer } {
  if (output === 'video') return VIDEO;
  if (output === 'glb') return GLB;
  return IMAGES[format] ?? (IMAGES.png as { type: string; bytes: Buffer });
}

/**
 * A GLB with one textureless triangle: 12-byte header (magic glTF, version 2, total length), a JSON
 * chunk padded with spaces and a BIN chunk with three float positions, each 4-byte aligned.
 */
function glb(): Buffer {
  const positions = Buffer.alloc(36);
  for (const [i, v] of [0, 0, 0, 1, 0, 0, 0, 1, 0].entries()) positions.writeFloatLE(v, i * 4);
  const gltf = {
    asset: { version: '2.0', generator: 'gateway-conformance reference' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] },
    ],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 36, target: 34962 }],
    buffers: [{ byteLength: 36 }],
  };
  let json = Buffer.from(JSON.stringify(gltf), 'utf8');
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const chunk = (type: number, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(data.length, 0);
    head.writeUInt32LE(type, 4);
    return Buffer.concat([head, data]);
  };
  const body = Buffer.concat([chunk(0x4e4f534a, json), chunk(0x004e4942, positions)]);
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'ascii');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + body.length, 8);
  return Buffer.concat([header, body]);
}
