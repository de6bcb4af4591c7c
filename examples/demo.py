"""The superspark demo: run with `make demo`."""

import superspark


def main() -> None:
    spark = superspark.session("superspark-demo", **{"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("WARN")
    print(f"jar: {superspark.jar_path()}")
    print("SELECT superspark_version():")
    spark.sql("SELECT superspark_version() AS superspark_version").show()
    spark.stop()


if __name__ == "__main__":
    main()
