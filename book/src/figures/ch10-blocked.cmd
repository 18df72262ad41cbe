# Chapter 10: a blocking call in each item's task, then the same call on the blocking pool.
blocked | examples/wrong_blocking --items 200 --conns 20 --latency 10ms
on the pool | examples/wrong_blocking --items 200 --conns 20 --latency 10ms --fixed
