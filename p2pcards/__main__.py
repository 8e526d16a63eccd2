from p2pcards.cli import main

raise SystemExit(main())
