01-sync --items 40 --latency 5ms --faults nak=0.1,ko=0.1,drop=0.05,hang=0.05 --read-timeout 50ms
