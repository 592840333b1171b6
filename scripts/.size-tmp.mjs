import { build } from 'esbuild';
for (const e of process.argv.slice(2)) {
  const r = await build({ entryPoints: [e], bundle: true, write: false, format: 'esm', platform: 'node', packages: 'external', metafile: true, logLevel: 'silent' });
  const ins = Object.keys(r.metafile.inputs);
  const ext = new Set(); for (const i of Object.values(r.metafile.inputs)) for (const im of i.imports) if (im.external && !im.path.startsWith('node:')) ext.add(im.path);
  console.log(e, r.outputFiles[0].contents.length, 'inputs', ins.length, [...ext].join(','));
}
