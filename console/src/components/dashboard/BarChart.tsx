import { useEffect, useRef } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartData,
  type ChartOptions,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';

// Only what bar charts need, so that the dashboard's chunk carries no other chart type.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);
// The console's text colour, darker than chart.js's grey, for the axes and legend to read well.
Chart.defaults.color = '#1b1f24';
Chart.defaults.font.family = 'system-ui, sans-serif';

/**
 * A bar chart drawn by chart.js, its numbers on hover. A canvas says nothing to a screen reader:
 * it is an image summarised by `summary`, and each chart has its numbers in a table too.
 */
export function BarChart({
  summary,
  data,
  options,
  height,
}: {
  summary: string;
  data: ChartData<'bar', number[], string>;
  options: ChartOptions<'bar'>;
  /** In rem: a chart fills its box, whose height sets how tall the bars can be. */
  height: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) {
      return;
    }
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data,
      options: {
        // Drawn at once: a dashboard is read, and a screenshot never catches bars half grown.
        animation: false,
        maintainAspectRatio: false,
        responsive: true,
        ...options,
      },
    });
    return () => chart.destroy();
  }, [data, options]);
  return (
    <div className="chart-box" style={{ height: `${height}rem` }}>
      <canvas ref={canvas} role="img" aria-label={summary} />
    </div>
  );
}
