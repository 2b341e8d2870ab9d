# The plots of bench/run_events.sh, drawn by bench/events_report.sh as:
#   gnuplot -c bench/events.gp   (in the directory OUT)
# Reads rates.csv, memory.csv, roundtrip_histogram.csv and capacity_by_sync.csv;
# writes rates.png, memory.png, roundtrip_histogram.png and capacity.png.
# The files are constant names in gnuplot's working directory: no path reaches gnuplot.

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 1100,650 font ',10'
} else {
  set terminal png size 1100,650
}
set datafile separator ','
set grid
set termoption noenhanced
set style data linespoints

# Latency percentiles against the offered rate (open loop, from each command's due time).
set output 'rates.png'
set title 'Amendment latency against offered rate (open loop; end to end, durable commit included)'
set logscale xy
set xlabel 'offered amendments per second'
set ylabel 'microseconds'
set key outside right top
plot for [c = 6:11] 'rates.csv' using 2:c title columnhead(c)
unset logscale

# The engine's memory as trades are booked.
set output 'memory.png'
set title 'Engine memory while booking outright trades'
set xlabel 'trades booked'
set ylabel 'MiB'
set y2label 'database + WAL, MiB'
set y2tics
set key inside left top
plot 'memory.csv' using 2:($3 / 1024) every ::1 title 'VmPeak', \
     '' using 2:($4 / 1024) every ::1 title 'VmRSS', \
     '' using 2:(($5 + $6) / 1048576) every ::1 axes x1y2 title 'database + WAL (right axis)'
unset y2tics
unset y2label

# Round-trip histogram per repeat: the share of amendments per latency bucket.
set output 'roundtrip_histogram.png'
set title 'Round-trip latency histogram per repeat (10 buckets per decade)'
set logscale x
set xlabel 'microseconds (bucket upper bound)'
set ylabel 'amendments'
set key outside right top
stats 'roundtrip_histogram.csv' using 2 every ::1 nooutput
plot for [r = 1:int(STATS_max)] 'roundtrip_histogram.csv' using 3:($2 == r ? $4 : 1/0) every ::1 \
     title sprintf('repeat %d', r)
unset logscale

# Sustained commands per second of each workload, per synchronous setting.
set output 'capacity.png'
set title 'Sustained commands per second by workload and synchronous setting'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xlabel ''
set ylabel 'commands per second'
set xtics rotate by -20
set key inside right top
plot for [c = 2:4] 'capacity_by_sync.csv' using c:xtic(1) title columnhead(c)
