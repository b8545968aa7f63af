import { holdYoungGeneration } from './v8-heap';

// Imported first by the entry points, so that it runs before the application's modules load.
holdYoungGeneration();
