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
set grid
set key outside right top
set logscale x 2
set xlabel 'NUM\_THREADS (worker threads; single-threaded mean as a line)'

# Durations on a log axis: a series that collapses (100x slower) must not
# flatten the others into the x axis.
set output 'duration_vs_threads.png'
set title 'Full flush duration against NUM\_THREADS (mean and standard deviation of the repeats)'
set ylabel 'flush seconds (log)'
set logscale y
plot for [i = 0:n - 1] series index i using 1:2:3 with yerrorlines title columnhead(1), \
     for [i = 0:n_st - 1] st index i using 1:2 with lines dashtype 2 lw 2 title columnhead(1).' single-threaded mean'

set output 'duration_and_cs_vs_threads.png'
set title 'Duration (left axis, lines) and process context switches per run (right axis, points)'
set ylabel 'flush seconds (log)'
set y2label 'context switches per run (log)'
set logscale y2
set y2tics
set ytics nomirror
plot for [i = 0:n - 1] series index i using 1:2 axes x1y1 with linespoints title columnhead(1).' seconds', \
     for [i = 0:n - 1] series index i using 1:($4 > 0 ? $4 : 1) axes x1y2 with points pointsize 1.5 title columnhead(1).' switches'
unset y2label
unset logscale y2
unset y2tics
unset logscale y
set ytics mirror

set output 'speedup.png'
set title sprintf('Speedup over the single-threaded mean of each variant, on %d cores', cores)
set ylabel 'single-threaded mean / mean duration'
set yrange [0:*]
plot for [i = 0:n - 1] series index i using 1:6 with linespoints title columnhead(1), \
     (x < cores ? x : cores) with lines dashtype 2 lw 2 title sprintf('ideal (%d cores)', cores)

unset logscale x
set output 'cs_per_second.png'
set title 'System-wide context switches per second while the sweep ran (each run a peak)'
set xlabel 'seconds since the sweep started'
set ylabel 'context switches per second'
set datafile separator ','
set key off
plot 'cs_timeline.csv' using 1:2 every ::1 with lines lw 1
