02-fork --items 200 --conns 4 --latency 5ms --crash-worker 1:10
