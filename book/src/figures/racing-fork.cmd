02-fork --items 4000 --conns 50 --latency 2ms
