/**
 * The Pulumi program (`Pulumi.yaml` points here): reads the stack's `fragbench:*` config, builds
 * the fleet it describes, and exports its inventory for the scenario engine. See README.md here.
 */
import * as pulumi from '@pulumi/pulumi';
import { buildFleet } from './fleet';
import { readSettings } from './settings';
import { NAMESPACE } from './settings-config';

const config = new pulumi.Config(NAMESPACE);
const settings = readSettings((key) => config.get(key), pulumi.getStack());

/** The fleet as the workflows see it: `pulumi stack output inventory --json`. No private key. */
export const inventory = buildFleet(settings, config.requireSecret('sshPrivateKey'));
