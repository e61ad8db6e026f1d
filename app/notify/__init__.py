"""Change notifications within a worker: the hub that fans the listening connection's
notifications out to waiters (hub.py), and the long poll that holds an unchanged answer on
it (wait.py). The /latest route and the live routes (app/live/) both hold requests here,
so neither imports the other for it."""
