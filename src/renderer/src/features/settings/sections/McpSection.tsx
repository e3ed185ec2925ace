import { McpServersSection } from '../../mcp';
import { SectionFields } from './GenericSection';

/** Settings → MCP servers: the MCP feature's own list editor (features/mcp), and any other key of the section. */
export function McpSection() {
  return (
    <>
      <McpServersSection />
      <SectionFields section="mcp" except={['mcp.servers']} />
    </>
  );
}
