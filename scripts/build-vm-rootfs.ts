/**
 * Builds the VM-shaped nodes' image and apt repository (infra/vmlocal/rootfs.ts) unless the
 * current one is cached, and prints what it took: `setup.sh` runs it; needs the network.
 */
import { buildRootfs } from '../infra/vmlocal/rootfs';

buildRootfs((line) => console.log(`vm rootfs: ${line}`))
  .then((built) => {
    const how = built.seconds > 0 ? `built in ${built.seconds.toFixed(1)} s` : 'cached';
    console.log(`vm rootfs ${built.stamp}: ${how}; ${built.packages} packages in the local apt repository (${built.repository})`);
  })
  .catch((err: unknown) => {
    console.error(`vm rootfs: ${(err as Error).message}`);
    process.exit(1);
  });
