06-scheduler --items 300 --conns 20 --latency 2ms --faults nak=0.05,ko=0.05,hang=0.03,drop=0.02,garbage=0.02 --read-timeout 100ms
