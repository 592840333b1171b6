/**
 * The WORKDIR of the tutorials' images whose Dockerfile sets one, where a
 * container without `workingDir` starts (its command, an exec, the
 * interactive prompt): redis's `/data` (the Volume for Storage page's
 * prompt is `root@redis:/data#`). Other images: `/`.
 */
import { repoAndTag } from './image-contents.js';

const workdirs: Record<string, string> = {
  'docker.io/library/redis': '/data',
};

export function imageWorkingDir(image: string | undefined): string | undefined {
  return image ? workdirs[repoAndTag(image).repo] : undefined;
}
