export {
  freePort,
  freePortPair,
  freshDataDir,
  localServerEnv,
  removeDataDirs,
  spawnServer,
  startServer,
  type RunningServer,
} from '../../scripts/lib/server';
