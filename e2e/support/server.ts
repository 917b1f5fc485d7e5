export { freePort, freePortPair, freshDataDir, removeDataDirs, startServer, type RunningServer } from '../../scripts/lib/server';
