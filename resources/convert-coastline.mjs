// SPDX-License-Identifier: GPL-3.0-or-later
// Converts Natural Earth 1:110m land (TopoJSON from the npm package world-atlas 2.x) into
// land-110m.bin, the outline the geo panel draws. Run once; the output is committed.
//
//   mkdir /tmp/atlas && cd /tmp/atlas && npm install world-atlas@2
//   node convert-coastline.mjs /tmp/atlas/node_modules/world-atlas/land-110m.json land-110m.bin
//
// Output, little-endian: "RLC1", uint32 polyline count, then per polyline uint32 point count
// and that many (int32 lon, int32 lat) pairs in 1e-4 degrees. Longitude first, always.
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
    console.error('usage: node convert-coastline.mjs land-110m.json land-110m.bin');
    process.exit(2);
}
const topo = JSON.parse(readFileSync(input, 'utf8'));
const [sx, sy] = topo.transform.scale;
const [tx, ty] = topo.transform.translate;

// TopoJSON arcs are quantized and delta-encoded: sum the deltas, then scale and translate.
const arcs = topo.arcs.map((arc) => {
    let x = 0, y = 0;
    return arc.map(([dx, dy]) => {
        x += dx; y += dy;
        return [x * sx + tx, y * sy + ty];
    });
});
const arcPoints = (i) => (i >= 0 ? arcs[i] : arcs[~i].slice().reverse());

// Polygons are cut at the antimeridian and Antarctica is closed along its southern edge; those
// edges are not coast, so a ring is split wherever a segment runs along them or jumps across
// the map from one side to the other.
const artificial = (a, b) =>
    (Math.abs(a[0]) > 179.99 && Math.abs(b[0]) > 179.99) || (a[1] < -84.9 && b[1] < -84.9) ||
    Math.abs(a[0] - b[0]) > 180;

const lines = [];
const rings = [];
for (const geom of topo.objects.land.geometries) {
    const polys = geom.type === 'Polygon' ? [geom.arcs] : geom.type === 'MultiPolygon' ? geom.arcs : [];
    for (const poly of polys) rings.push(...poly);
}
for (const ring of rings) {
    const pts = [];
    for (const idx of ring) {
        const p = arcPoints(idx);
        pts.push(...(pts.length ? p.slice(1) : p));
    }
    let cur = [];
    for (let i = 0; i < pts.length; ++i) {
        if (cur.length && artificial(cur[cur.length - 1], pts[i])) {
            if (cur.length > 1) lines.push(cur);
            cur = [];
        }
        cur.push(pts[i]);
    }
    if (cur.length > 1) lines.push(cur);
}

const total = lines.reduce((n, l) => n + l.length, 0);
const buf = Buffer.alloc(8 + lines.length * 4 + total * 8);
let o = buf.write('RLC1', 0, 'latin1');
o = buf.writeUInt32LE(lines.length, o);
for (const line of lines) {
    o = buf.writeUInt32LE(line.length, o);
    for (const [lon, lat] of line) {
        o = buf.writeInt32LE(Math.round(lon * 1e4), o);
        o = buf.writeInt32LE(Math.round(lat * 1e4), o);
    }
}
writeFileSync(output, buf);
console.log(`${lines.length} polylines, ${total} points, ${buf.length} bytes`);
