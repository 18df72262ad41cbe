02-fork --items 200 --conns 8 --latency 5ms
