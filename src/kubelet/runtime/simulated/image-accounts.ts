/**
 * The /etc/passwd and /etc/group of the images whose accounts a tutorial
 * reads: agnhost (registry.k8s.io/e2e-test-images/agnhost, built on alpine),
 * whose Dockerfile adds `user-defined-in-image` (uid 1000) and puts it in
 * `group-defined-in-image` (50000), for the Configure a Security Context
 * page's "Implicit group memberships defined in /etc/group in the container
 * image" (`id`: `uid=1000 gid=3000 groups=3000,4000,50000`). The rest of
 * each file is alpine's standard accounts.
 *
 * containerd gives a container's process, beside the kubelet's groups, every
 * group the image's /etc/group lists the user's name in (the user named by
 * the uid in /etc/passwd): `imageGroups`.
 */

export const agnhostImage = /^((registry\.k8s\.io|k8s\.gcr\.io|gcr\.io\/kubernetes-e2e-test-images)\/)?(e2e-test-images\/)?agnhost(:|@|$)/;

const alpinePasswd = `root:x:0:0:root:/root:/bin/sh
bin:x:1:1:bin:/bin:/sbin/nologin
daemon:x:2:2:daemon:/sbin:/sbin/nologin
adm:x:3:4:adm:/var/adm:/sbin/nologin
lp:x:4:7:lp:/var/spool/lpd:/sbin/nologin
sync:x:5:0:sync:/sbin:/bin/sync
shutdown:x:6:0:shutdown:/sbin:/sbin/shutdown
halt:x:7:0:halt:/sbin:/sbin/halt
mail:x:8:12:mail:/var/mail:/sbin/nologin
news:x:9:13:news:/usr/lib/news:/sbin/nologin
uucp:x:10:14:uucp:/var/spool/uucppublic:/sbin/nologin
operator:x:11:0:operator:/root:/sbin/nologin
man:x:13:15:man:/usr/man:/sbin/nologin
postmaster:x:14:12:postmaster:/var/mail:/sbin/nologin
cron:x:16:16:cron:/var/spool/cron:/sbin/nologin
ftp:x:21:21::/var/lib/ftp:/sbin/nologin
sshd:x:22:22:sshd:/dev/null:/sbin/nologin
at:x:25:25:at:/var/spool/cron/atjobs:/sbin/nologin
squid:x:31:31:Squid:/var/cache/squid:/sbin/nologin
xfs:x:33:33:X Font Server:/etc/X11/fs:/sbin/nologin
games:x:35:35:games:/usr/games:/sbin/nologin
cyrus:x:85:12::/usr/cyrus:/sbin/nologin
vpopmail:x:89:89::/var/vpopmail:/sbin/nologin
ntp:x:123:123:NTP:/var/empty:/sbin/nologin
smmsp:x:209:209:smmsp:/var/spool/mqueue:/sbin/nologin
guest:x:405:100:guest:/dev/null:/sbin/nologin
nobody:x:65534:65534:nobody:/:/sbin/nologin
`;

const alpineGroup = `root:x:0:root
bin:x:1:root,bin,daemon
daemon:x:2:root,bin,daemon
sys:x:3:root,bin,adm
adm:x:4:root,adm,daemon
tty:x:5:
disk:x:6:root,adm
lp:x:7:lp
mem:x:8:
kmem:x:9:
wheel:x:10:root
floppy:x:11:root
mail:x:12:mail
news:x:13:news
uucp:x:14:uucp
man:x:15:man
cron:x:16:cron
console:x:17:
audio:x:18:
cdrom:x:19:
dialout:x:20:root
ftp:x:21:
sshd:x:22:
input:x:23:
at:x:25:at
tape:x:26:root
video:x:27:root
netdev:x:28:
readproc:x:30:
squid:x:31:squid
xfs:x:33:xfs
kvm:x:34:kvm
games:x:35:
shadow:x:42:
cdrw:x:80:
www-data:x:82:
users:x:100:games
vpopmail:x:89:
ntp:x:123:
nofiles:x:200:
smmsp:x:209:smmsp
locate:x:245:
abuild:x:300:
utmp:x:406:
ping:x:999:
nogroup:x:65533:
nobody:x:65534:
`;

/** An image's /etc/passwd and /etc/group where the simulation knows them. */
export function imageAccounts(image: string | undefined): { passwd: string; group: string } | undefined {
  if (!agnhostImage.test(image ?? '')) return undefined;
  return {
    passwd: `${alpinePasswd}user-defined-in-image:x:1000:1000:Linux User,,,:/home/user-defined-in-image:/bin/sh\n`,
    group: `${alpineGroup}user-defined-in-image:x:1000:\ngroup-defined-in-image:x:50000:user-defined-in-image\n`,
  };
}

/** The groups the image's /etc/group lists uid's user in, as containerd adds them; undefined where the image's accounts are not known. */
export function imageGroups(image: string | undefined, uid: number): number[] | undefined {
  const accounts = imageAccounts(image);
  if (!accounts) return undefined;
  const name = accounts.passwd.split('\n').map((l) => l.split(':')).find((f) => f[2] === String(uid))?.[0];
  if (!name) return [];
  return accounts.group.split('\n').map((l) => l.split(':')).filter((f) => f.length >= 4 && f[3]!.split(',').includes(name)).map((f) => Number(f[2]));
}
