"""Everything that starts Spark (in this process or in a child): kadmin.spark and ``kadmin ... provision``."""
