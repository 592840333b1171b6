/**
 * `ls` on a terminal lists names in columns, sorted down each column, as
 * `kubectl exec -it POD -- sh` then `ls /etc/secret-volume` shows them
 * (`password  username`); without a terminal it writes one name a line.
 * The two ls of the tutorials' images lay columns out differently:
 *
 *  - busybox (busybox, alpine): every column is as wide as the longest name
 *    plus 2, padded with spaces; as many columns as fit the width (ls.c
 *    display_files).
 *  - GNU coreutils (debian, nginx, ...): the most columns that fit, each as
 *    wide as its own longest name plus 2 (the last one unpadded), padded
 *    with tabs of 8 where a tab fits, then spaces (ls.c print_many_per_line,
 *    indent with tabsize 8).
 */
import { helloAppOnAlpine } from './image-entrypoints.js';
import { agnhostImage } from './image-accounts.js';

/** Images built on busybox: busybox, alpine, and radial/busyboxplus (busybox with curl and git, the Services page's `curl` pod). */
export const busyboxBased = /(^|\/)(busybox|busyboxplus|alpine)(:|@|$)/;

/** Which ls an image's `ls` is: busybox's in busybox-based images and hello-app's and agnhost's (built on alpine), else coreutils'. */
export const lsFlavour = (image: string | undefined): 'busybox' | 'coreutils' =>
  busyboxBased.test(image ?? 'busybox') || helloAppOnAlpine.test(image ?? '') || agnhostImage.test(image ?? '') ? 'busybox' : 'coreutils';

/** The names laid out in columns for a terminal `width` columns wide, each row ending in a newline. */
export function lsColumns(names: string[], width: number, flavour: 'busybox' | 'coreutils'): string {
  if (!names.length) return '';
  return flavour === 'busybox' ? busyboxColumns(names, width) : coreutilsColumns(names, width);
}

function busyboxColumns(names: string[], width: number): string {
  const columnWidth = Math.max(...names.map((n) => n.length)) + 2;
  // busybox takes one column less than the terminal has ("go one less...").
  const cols = Math.max(1, Math.floor((width - 1) / columnWidth));
  const rows = Math.ceil(names.length / cols);
  let out = '';
  for (let r = 0; r < rows; r++) {
    let line = '';
    for (let c = 0; c < cols; c++) {
      const name = names[c * rows + r];
      if (name === undefined) continue;
      line = (c > 0 ? line.padEnd(c * columnWidth) : '') + name;
    }
    out += `${line}\n`;
  }
  return out;
}

/** The widths of each column when the names go down `cols` columns, or undefined when they do not fit. */
function columnWidths(names: string[], cols: number, width: number): number[] | undefined {
  const rows = Math.ceil(names.length / cols);
  // coreutils never leaves a column empty: fewer columns would hold the same names.
  if (Math.ceil(names.length / rows) !== cols) return undefined;
  const widths: number[] = [];
  for (let c = 0; c < cols; c++) {
    const inColumn = names.slice(c * rows, (c + 1) * rows);
    // coreutils' MIN_COLUMN_WIDTH is 3.
    widths.push(Math.max(3, Math.max(...inColumn.map((n) => n.length)) + (c === cols - 1 ? 0 : 2)));
  }
  return widths.reduce((a, b) => a + b, 0) < width ? widths : undefined;
}

function coreutilsColumns(names: string[], width: number): string {
  let widths = [Math.max(...names.map((n) => n.length))];
  for (let cols = names.length; cols > 1; cols--) {
    const w = columnWidths(names, cols, width);
    if (w) { widths = w; break; }
  }
  const rows = Math.ceil(names.length / widths.length);
  let out = '';
  for (let r = 0; r < rows; r++) {
    let line = '';
    let pos = 0;
    let target = 0;
    for (let c = 0; c < widths.length; c++) {
      const name = names[c * rows + r];
      if (name === undefined) break;
      // Indent from where the last name ended to the column as coreutils' indent(): a tab when it does not overshoot a space would do, else a space.
      while (pos < target) {
        if (Math.floor(target / 8) > Math.floor((pos + 1) / 8)) { line += '\t'; pos += 8 - (pos % 8); } else { line += ' '; pos++; }
      }
      line += name;
      pos = target + name.length;
      target += widths[c]!;
    }
    out += `${line}\n`;
  }
  return out;
}
