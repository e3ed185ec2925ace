import './worktrees.css';

export { WorktreeBar, useWorktree } from './WorktreeBar';
export { describeWorktreeError, preparePlace, useRepo, WhereField, type Where } from './where';
