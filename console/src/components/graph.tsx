/**
 * A stack's dependency graph: laid out by dagre (top to bottom, dependencies above their
 * dependents), drawn as SVG, each node coloured by its status (the class, so the page's stylesheet
 * says the colours). A picture to screen readers (its title says what it is): the page lists the
 * same resources, with links, as a table beside it.
 */
import dagre from '@dagrejs/dagre';
import { statusClass } from './common';

export interface GraphNode {
  id: string;
  label: string;
  status: string;
  dependsOn: string[];
}

const WIDTH = 180;
const HEIGHT = 48;

export function Graph({ nodes, title }: { nodes: GraphNode[]; title: string }) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 40, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const known = new Set(nodes.map((n) => n.id));
  for (const n of nodes) g.setNode(n.id, { width: WIDTH, height: HEIGHT });
  for (const n of nodes) for (const d of n.dependsOn) if (known.has(d)) g.setEdge(d, n.id);
  dagre.layout(g);
  const size = g.graph();
  const width = Math.max(size.width ?? 0, WIDTH + 16);
  const height = Math.max(size.height ?? 0, HEIGHT + 16);
  return (
    <svg
      class="graph"
      role="img"
      aria-label={title}
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
    >
      <title>{title}</title>
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="10"
          refY="5"
          markerWidth="8"
          markerHeight="8"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" class="arrow" />
        </marker>
      </defs>
      {g.edges().map((e) => {
        const points = g.edge(e).points ?? [];
        return (
          <polyline
            key={`${e.v}->${e.w}`}
            class="edge"
            points={points.map((p: { x: number; y: number }) => `${p.x},${p.y}`).join(' ')}
            marker-end="url(#arrow)"
          />
        );
      })}
      {nodes.map((n) => {
        const at = g.node(n.id);
        return (
          <g key={n.id} class={`node ${statusClass(n.status)}`} data-node={n.id} data-status={n.status}>
            <rect x={at.x - WIDTH / 2} y={at.y - HEIGHT / 2} width={WIDTH} height={HEIGHT} rx="6" />
            <text x={at.x} y={at.y - 4} text-anchor="middle" class="label">
              {n.label}
            </text>
            <text x={at.x} y={at.y + 14} text-anchor="middle" class="sub">
              {n.status}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
