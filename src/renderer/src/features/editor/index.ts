export { MonacoDiff } from './MonacoDiff';
export { MonacoViewer } from './MonacoViewer';
