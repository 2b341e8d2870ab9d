# The bench scripts' one median, put before an awk program by median_awk
# (bench/common.sh):
# median(list) of a space-separated list of numbers (the list may start with
# a space, as one built by appending " " value does); "" for an empty list.
function median(list,   n, v, i, j, t) {
  n = split(list, v, " ")
  if (n == 0) return ""
  for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
