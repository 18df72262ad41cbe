05-pool --items 600 --conns 10 --latency 2ms --outage 60ms+120ms
