05-pool --items 2000 --conns 50 --latency 2ms --faults hang=0.02,drop=0.02,garbage=0.02 --read-timeout 100ms
