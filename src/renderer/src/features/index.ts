// Each feature registers its tab kinds, sidebar sections, launcher actions and shortcuts on import.
import './shell';
import './hosts';
import './agents';
import './session';
import './history';
import './compare';
import './tasks';
import './registry';
import './overview';
import './settings';
import './checkpoints';
import './mcp';
import './about';
