// Generates the app icon's PNG sizes, .icns and .ico in resources/icons/ from resources/icons/icon.svg.
// Run: node scripts/icons.mjs  (the generated files are committed; run it again after changing the SVG)
import { Resvg } from '@resvg/resvg-js';
import png2icons from 'png2icons';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ICON_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024];

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icons');
const svg = readFileSync(join(dir, 'icon.svg'));

const render = (size) => new Resvg(svg, { fitTo: { mode: 'width', value: size } }).render().asPng();

for (const size of ICON_SIZES) writeFileSync(join(dir, `${size}x${size}.png`), render(size));
// electron-builder's default names: icon.png (Linux, 512+), icon.icns (macOS), icon.ico (Windows).
const big = render(1024);
writeFileSync(join(dir, 'icon.png'), big);
const icns = png2icons.createICNS(big, png2icons.BICUBIC, 0);
const ico = png2icons.createICO(big, png2icons.BICUBIC, 0, false, true);
if (!icns || !ico) throw new Error('png2icons could not convert the icon');
writeFileSync(join(dir, 'icon.icns'), icns);
writeFileSync(join(dir, 'icon.ico'), ico);
console.log(`icons written to ${dir}`);
