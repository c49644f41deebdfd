from geventperf.cli import main

raise SystemExit(main())
