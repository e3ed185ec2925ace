// First: the socket opens, and the first paint's requests go out, before the rest of the script runs.
import { connection } from './app/startup';
import { createRoot } from 'react-dom/client';
import './styles.css';
import './features';
import { App } from './app/App';

const root = createRoot(document.getElementById('root')!);

connection
  .then((api) => root.render(<App api={api} />))
  .catch((e: unknown) => {
    root.render(
      <div className="fatal" role="alert">
        <h1>Switchboard is not reachable</h1>
        <p>{e instanceof Error ? e.message : String(e)}</p>
        <p>Start it with <code>npm start</code> and open the address it prints.</p>
      </div>,
    );
  });
