import { registerSidebarSection } from '../../app/contributions';
import { HostsSidebar } from './HostsSidebar';
import './hosts.css';

registerSidebarSection({ id: 'hosts', title: 'Hosts', order: 15, view: HostsSidebar });

export { HostsSection } from './HostsSection';
export { folderProblemOnHost, HostPicker, useFolderCompletions } from './HostPicker';
export { FAILURE_TITLE, hostName, refreshHosts, STATE_TEXT, syncHosts, useHosts } from './state';
