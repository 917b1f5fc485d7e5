export {
  freePort,
  freePortPair,
  freshDataDir,
  removeDataDirs,
  spawnServer,
  startServer,
  type RunningServer,
} from '../../scripts/lib/server';
