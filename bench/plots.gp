# The benchmark's plots. Run by bench/plot.sh with:
#   gnuplot -c bench/plots.gp C   (in the directory OUT)
# plotdata/series.dat: one block per series (blocks apart by two blank
# lines), its first line the series' name in double quotes, then columns:
# threads, mean flush s, std dev, mean process context switches per run,
# mean system context switches per run, speedup over its variant's
# single-threaded mean. plotdata/st.dat: likewise, each variant's
# single-threaded mean as a line.
# The files are constant names in gnuplot's working directory (no path
# reaches gnuplot); series names arrive inside the data files, never as code.
cores = int(ARG1)

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 1100,700 font ',10'
} else {
  set terminal png size 1100,700
}
series = 'plotdata/series.dat'
st = 'plotdata/st.dat'
stats series using 1 nooutput
n = STATS_blocks
stats st using 1 nooutput
n_st = STATS_blocks
stats series using 2 nooutput
fastest = STATS_min
set grid xtics ytics mytics
set key outside right top title 'build/scheduler/wait policy' noenhanced
set logscale x 2
set xtics 2
set xlabel 'NUM\_THREADS (worker threads; single-threaded mean as a dashed line)'

# Durations on a log axis: a series that collapses (100x slower) must not
# flatten the others into the x axis. Tics every factor 2 from the decade
# below the fastest point, labelled in ms, so values can be read off.
set output 'duration_vs_threads.png'
set title 'Full flush duration against NUM\_THREADS (mean of the repeats; bars: standard deviation, when a point has several runs)'
set ylabel 'flush milliseconds (log scale)'
set logscale y
set ytics 1000 * 10 ** floor(log10(fastest)), 2
set format y '%.3g'
plot for [i = 0:n - 1] series index i using 1:($2 * 1000):($3 * 1000) with yerrorlines lc i + 1 title columnhead(1), \
     for [i = 0:n_st - 1] st index i using 1:($2 * 1000) with lines dashtype 2 lw 2 lc n + i + 1 title columnhead(1).' single-threaded mean'

set output 'duration_and_cs_vs_threads.png'
set title 'Duration (left axis, solid lines) and process context switches per run (right axis, dashed): one colour per series'
set ylabel 'flush milliseconds (log scale)'
set y2label 'context switches per run (log scale)'
set logscale y2
set y2tics format '%.0f'
set ytics nomirror
plot for [i = 0:n - 1] series index i using 1:($2 * 1000) axes x1y1 with linespoints lc i + 1 pt 7 title columnhead(1).' ms', \
     for [i = 0:n - 1] series index i using 1:($4 > 0 ? $4 : 1) axes x1y2 with linespoints lc i + 1 dashtype 2 pt 6 title columnhead(1).' switches'
unset y2label
unset logscale y2
unset y2tics
unset logscale y
set ytics mirror autofreq
set format y '%g'

set output 'speedup.png'
set title sprintf('Speedup over the single-threaded mean of each variant, on %d cores', cores)
set ylabel 'single-threaded mean / mean duration'
set yrange [0:*]
plot for [i = 0:n - 1] series index i using 1:6 with linespoints lc i + 1 title columnhead(1), \
     (x < cores ? x : cores) with lines dashtype 2 lw 2 title sprintf('ideal (%d cores)', cores)

unset logscale x
set output 'cs_per_second.png'
set title 'System-wide context switches per second while the sweep ran (sampled; a short run may show no peak of its own)'
set xlabel 'seconds since the sweep started'
set ylabel 'context switches per second'
set datafile separator ','
set key off
plot 'cs_timeline.csv' using 1:2 every ::1 with lines lw 1
