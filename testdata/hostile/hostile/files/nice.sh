#!/bin/sh
# Real-time scheduling and a raised priority: both need CAP_SYS_NICE.
if chrt -f 50 true 2>/dev/null; then echo "RESULT nice-fifo: GRANTED"; else echo "RESULT nice-fifo: denied"; fi
if renice -n -15 -p $$ >/dev/null 2>&1; then echo "RESULT nice-renice: GRANTED"; else echo "RESULT nice-renice: denied"; fi
