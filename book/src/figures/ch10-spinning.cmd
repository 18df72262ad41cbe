# Chapter 10: a rate limiter that wakes itself before every Pending, then one that sleeps.
spinning | examples/wrong_self_wake --items 40 --conns 10 --latency 2ms
sleeping | examples/wrong_self_wake --items 40 --conns 10 --latency 2ms --fixed
