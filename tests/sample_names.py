"""Each sample kernel's short name by kernel ID, as literals read off the kernel list and the
piped summary (both print a name whole where it fits): what the name tests expect."""

TORCH_OPS = {
    0: "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
    1: "nvjet_sm90_tst_64x16_64x16_2x1_v_bz_splitK_NNT",
    2: "splitKreduce",
    3: "cunn_SoftMaxForwardReg<SoftMaxForwardEpilogue>",
    4: "vectorized_layer_norm<float, float, 0>",
    5: "vectorized_elementwise<CUDAFunctor_add>",
    6: "vectorized_elementwise<Gelu>",
}
"""``samples/ncu/torch_ops``."""

GEMM_TORCH_FULL = {
    0: "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
    1: "sm80_xmma_gemm_f32_nn_n_256x128x8_ffma",
    2: "sm90_xmma_gemm_f64_nn_n_128x64x16_tensor",
    3: "vectorized_elementwise<exp>",
}
"""``samples/ncu/gemm_torch_full``."""
