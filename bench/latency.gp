# Latency percentiles of bond_risk bench-events, which runs it as:
#   gnuplot -c bench/latency.gp 'NAME NAME ...'   (in the directory OUT)
# (reads latency.csv, writes latency.png; one line per series named).
# Names arrive as an argument (a string), never as code; the files are
# constant names in gnuplot's working directory, so no path reaches gnuplot.
series = ARG1
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 1200,700 font ',10'
} else {
  set terminal png size 1200,700
}
set output 'latency.png'
set datafile separator ','
set title 'Event latency percentiles (microseconds, log scale)'
set logscale y
set ylabel 'microseconds'
set grid
set key outside right top
set style data linespoints
set xtics ('min' 0, 'p50' 1, 'p75' 2, 'p90' 3, 'p99' 4, 'p99.9' 5, 'p99.99' 6, 'max' 7)
set key noenhanced
plot for [i = 1:words(series)] 'latency.csv' using (int($0) % 8):(strcol(1) eq word(series, i) ? $3 : 1/0) \
     every ::1 title word(series, i)
