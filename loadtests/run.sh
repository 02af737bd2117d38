#!/usr/bin/env bash
# Runs the locust load tests (loadtests/locustfile.py) headless against a running TideMQ.
#
#   loadtests/run.sh URL SECONDS [SCENARIO]
#
# SCENARIO: rest, sqs, ws, topic, or mix (the default: all of them at once).
# Credentials as the AWS CLI takes them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
# (AWS_DEFAULT_REGION, default us-east-1). The WebSocket users need a bearer token in
# TIDEMQ_TOKEN (`tidemq keys token`); `mix` leaves them out without one.
# LOCUST_USERS (default: 2 per user class) and LOCUST_RESULTS_DIR (default:
# ./loadtest-results) change how many users run and where the CSV files and the HTML
# report go. Exits non-zero when any request failed (locust's own exit code).
set -euo pipefail

usage() {
  echo "usage: $0 URL SECONDS [rest|sqs|ws|topic|mix]" >&2
  exit 2
}

[[ $# -ge 2 && $# -le 3 ]] || usage
url=$1
seconds=$2
scenario=${3:-mix}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "SECONDS must be a positive whole number" >&2; usage; }
: "${AWS_ACCESS_KEY_ID:?set AWS_ACCESS_KEY_ID (and AWS_SECRET_ACCESS_KEY)}"
: "${AWS_SECRET_ACCESS_KEY:?set AWS_SECRET_ACCESS_KEY}"

case $scenario in
  rest) tags=(rest); classes=(RestPublisher RestConsumer) ;;
  sqs) tags=(sqs); classes=(SqsProducer SqsConsumer) ;;
  ws)
    : "${TIDEMQ_TOKEN:?the ws scenario needs a bearer token in TIDEMQ_TOKEN (tidemq keys token)}"
    tags=(ws); classes=(WebSocketConsumer) ;;
  topic) tags=(topic); classes=(TopicFanout) ;;
  mix)
    tags=(rest sqs ws topic)
    classes=(RestPublisher RestConsumer SqsProducer SqsConsumer TopicFanout)
    if [[ -n ${TIDEMQ_TOKEN:-} ]]; then
      classes+=(WebSocketConsumer)
    else
      echo "TIDEMQ_TOKEN is not set: the mix runs without its WebSocket users" >&2
    fi
    ;;
  *) echo "unknown scenario: $scenario" >&2; usage ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
users=${LOCUST_USERS:-$((2 * ${#classes[@]}))}
results=${LOCUST_RESULTS_DIR:-loadtest-results}
mkdir -p "$results"
prefix="$results/$scenario"

# Run from the directory above loadtests/, so that `python -m locust` finds the project's
# virtualenv's locust and the locustfile its imports, wherever this script is called from.
python=${PYTHON:-python3}
if [[ -x "$here/../.venv/bin/python" && -z ${PYTHON:-} ]]; then
  python="$here/../.venv/bin/python"
fi

exec "$python" -m locust \
  -f "$here/locustfile.py" \
  --headless \
  --host "$url" \
  --users "$users" \
  --spawn-rate "$users" \
  --run-time "${seconds}s" \
  --stop-timeout 10 \
  --tags "${tags[@]}" \
  --csv "$prefix" \
  --html "$prefix.html" \
  --only-summary \
  "${classes[@]}"
