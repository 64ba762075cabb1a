"""gradlib dashboard: the entry script is a router and a frame (pages live in pages/)."""

import streamlit as st

st.set_page_config(page_title="gradlib: per-element gradients", page_icon="∂", layout="wide")
st.title("gradlib")
st.write("Per-element gradients for TensorFlow. The pages are coming.")
