05-pool --items 4000 --conns 100 --latency 5ms
