import './worktrees.css';
import { registerSidebarSection } from '../../app/contributions';
import { BranchesSection } from './BranchesSection';

registerSidebarSection({ id: 'branches', title: 'Branches', order: 12, view: BranchesSection });

export { WorktreeBar, useWorktree } from './WorktreeBar';
export { describeWorktreeError, preparePlace, useRepo, WhereField, type Where } from './where';
