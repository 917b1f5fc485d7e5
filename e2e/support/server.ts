export { freePort, freshDataDir, removeDataDirs, startServer, type RunningServer } from '../../scripts/lib/server';
