# The same run on readiness (chapter 8's executor) and on completion.
readiness: 07-executor | 07-executor --items 400 --conns 20 --latency 5ms
completion: 08-uring | 08-uring --items 400 --conns 20 --latency 5ms
