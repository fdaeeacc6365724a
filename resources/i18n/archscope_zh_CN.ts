<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BaseTab</name>
    <message>
        <source>The job was stopped: the device changed to {0}.</source>
        <extracomment>a file opened in the background was accepted (its path) the tab let go of memory outside a job (the window hands free pages back)</extracomment>
        <translation>任务已停止：设备已切换为 {0}。</translation>
    </message>
    <message>
        <source>Opening {0}: {1} %</source>
        <translation>正在打开 {0}：{1} %</translation>
    </message>
    <message>
        <source>Opening {0} was cancelled; nothing was changed.</source>
        <translation>已取消打开 {0}，未作任何更改。</translation>
    </message>
</context>
<context>
    <name>EfficientTab</name>
    <message>
        <source>Sparse pattern: {0}, N = {1}, density {2:.1%}</source>
        <translation>稀疏图样：{0}，N = {1}，密度 {2:.1%}</translation>
    </message>
    <message>
        <source>Exact softmax attention and {0} (relative output error {1:.3g})</source>
        <translation>精确 softmax 注意力与{0}（输出相对误差 {1:.3g}）</translation>
    </message>
    <message>
        <source>Sparse pattern</source>
        <translation>稀疏图样</translation>
    </message>
    <message>
        <source>Receptive field over layers</source>
        <translation>各层的感受野</translation>
    </message>
    <message>
        <source>One mask, three APIs</source>
        <translation>一个掩码，三个接口</translation>
    </message>
    <message>
        <source>Exact and approximate attention</source>
        <translation>精确注意力与近似注意力</translation>
    </message>
    <message>
        <source>Error against exact attention</source>
        <translation>相对精确注意力的误差</translation>
    </message>
    <message>
        <source>Error against the q/k scale</source>
        <translation>误差随 q/k 尺度的变化</translation>
    </message>
    <message>
        <source>Cost in theory (one head)</source>
        <translation>理论开销（单个头）</translation>
    </message>
    <message>
        <source>Measured time</source>
        <translation>实测时间</translation>
    </message>
    <message>
        <source>Measured peak memory</source>
        <translation>实测峰值内存</translation>
    </message>
    <message>
        <source>The Transformer tab has no model output yet: open it once. Random q/k/v are used meanwhile.</source>
        <translation>Transformer 页还没有模型输出：请先打开一次该页。在此之前使用随机的 q/k/v。</translation>
    </message>
    <message>
        <source>The Transformer tab shows {0} queries against {1} keys (token by token); these approximations compare square attention. Set its decoding step to “whole output”. Random q/k/v are used meanwhile.</source>
        <translation>Transformer 页当前显示 {0} 个查询对 {1} 个键（逐个词元）；这些近似方法比较的是方阵形式的注意力。请把它的解码步数设为“完整输出”。在此之前使用随机的 q/k/v。</translation>
    </message>
    <message>
        <source>q/k/v of the Transformer tab: {0} layer {1}, head {2} ({3} queries, {4} keys, d_k = {5}).</source>
        <translation>来自 Transformer 页的 q/k/v：{0} 第 {1} 层，第 {2} 个头（{3} 个查询，{4} 个键，d_k = {5}）。</translation>
    </message>
    <message>
        <source>mask (yellow = may attend)</source>
        <translation>掩码（黄色 = 可关注）</translation>
    </message>
    <message>
        <source>reachable after {0} layers</source>
        <translation>{0} 层之后可达</translation>
    </message>
    <message>
        <source>keys reached by the middle query</source>
        <translation>中间查询可达的键数</translation>
    </message>
    <message>
        <source>pairs connected / N</source>
        <translation>连通的对数 / N</translation>
    </message>
    <message>
        <source>course, −1e9</source>
        <translation>课程，−1e9</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>opposite polarity: Δ {0}</source>
        <translation>极性相反时：Δ {0}</translation>
    </message>
    <message>
        <source>exact softmax</source>
        <translation>精确 softmax</translation>
    </message>
    <message>
        <source>implied by {0}</source>
        <translation>{0} 隐含的矩阵</translation>
    </message>
    <message>
        <source>orthogonal features</source>
        <translation>正交特征</translation>
    </message>
    <message>
        <source>i.i.d. features</source>
        <translation>独立同分布特征</translation>
    </message>
    <message>
        <source>random projection</source>
        <translation>随机投影</translation>
    </message>
    <message>
        <source>φ = elu + 1</source>
        <translation>φ = elu + 1</translation>
    </message>
    <message>
        <source>banded window</source>
        <translation>带状窗口</translation>
    </message>
    <message>
        <source>random features m</source>
        <translation>随机特征数 m</translation>
    </message>
    <message>
        <source>projected length k</source>
        <translation>投影长度 k</translation>
    </message>
    <message>
        <source>window w</source>
        <translation>窗口 w</translation>
    </message>
    <message>
        <source>q/k scale</source>
        <translation>q/k 尺度</translation>
    </message>
    <message>
        <source>{0:.1%} of the implied weights are negative</source>
        <translation>隐含权重中有 {0:.1%} 为负</translation>
    </message>
    <message>
        <source>Performer is cheaper than exact attention from N = 2m = {0:g} (FLOPs)</source>
        <translation>从 N = 2m = {0:g} 起，Performer 的开销低于精确注意力（按 FLOPs）</translation>
    </message>
    <message>
        <source>Press “Measure time and memory”
to time each method
on this device.</source>
        <translation>点击“测量时间和内存”，
在此设备上
为每种方法计时。</translation>
    </message>
    <message>
        <source>A quick first measurement (N ≤ {0}, {1:g} s budget); press “Measure time and memory” for more.</source>
        <translation>快速初测（N ≤ {0}，时间预算 {1:g} 秒）；点击“测量时间和内存”测量更大范围。</translation>
    </message>
    <message>
        <source>Measured on {0}.</source>
        <translation>在 {0} 上实测。</translation>
    </message>
    <message>
        <source>Measuring: {0} at N = {1}</source>
        <translation>正在测量：{0}，N = {1}</translation>
    </message>
    <message>
        <source>Measured: Performer is faster than SDPA from N = {0}.</source>
        <translation>实测：从 N = {0} 起 Performer 比 SDPA 快。</translation>
    </message>
    <message>
        <source>Measured: Performer has not beaten SDPA yet.</source>
        <translation>实测：Performer 尚未快过 SDPA。</translation>
    </message>
    <message>
        <source>it is not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>its memory_efficient_attention needs a CUDA device</source>
        <translation>它的 memory_efficient_attention 需要 CUDA 设备</translation>
    </message>
    <message>
        <source>xformers is left out: {0}.</source>
        <translation>未测 xformers：{0}。</translation>
    </message>
    <message>
        <source>Measure time and memory</source>
        <translation>测量时间和内存</translation>
    </message>
    <message>
        <source>query {0} → key {1}: {2}</source>
        <translation>查询 {0} → 键 {1}：{2}</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>query {0} → key {1}: exact {2:.4f}, approximate {3:.4f}; row TV distance {4:.3f}</source>
        <translation>查询 {0} → 键 {1}：精确 {2:.4f}，近似 {3:.4f}；该行总变差距离 {4:.3f}</translation>
    </message>
    <message>
        <source>{0} ({1}): [{2}, {3}] = {4:.4f}</source>
        <translation>{0}（{1}）：[{2}, {3}] = {4:.4f}</translation>
    </message>
    <message>
        <source>local window</source>
        <translation>局部窗口</translation>
    </message>
    <message>
        <source>dilated window</source>
        <translation>膨胀窗口</translation>
    </message>
    <message>
        <source>strided</source>
        <translation>跨步</translation>
    </message>
    <message>
        <source>global tokens</source>
        <translation>全局词元</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>BigBird blocks</source>
        <translation>BigBird 块</translation>
    </message>
    <message>
        <source>Longformer (window + global)</source>
        <translation>Longformer（窗口 + 全局）</translation>
    </message>
    <message>
        <source>course</source>
        <translation>课程实现</translation>
    </message>
    <message>
        <source>mask (1 = attend)</source>
        <translation>mask（1 = 参与注意力）</translation>
    </message>
    <message>
        <source>attn_mask=mask (True = take part)</source>
        <translation>attn_mask=mask（True = 参与计算）</translation>
    </message>
    <message>
        <source>attn_mask=~mask (True = blocked)</source>
        <translation>attn_mask=~mask（True = 被屏蔽）</translation>
    </message>
    <message>
        <source>Performer (FAVOR+)</source>
        <translation>Performer（FAVOR+）</translation>
    </message>
    <message>
        <source>Linformer</source>
        <translation>Linformer</translation>
    </message>
    <message>
        <source>linear attention (elu + 1)</source>
        <translation>线性注意力（elu + 1）</translation>
    </message>
    <message>
        <source>banded (local)</source>
        <translation>带状（局部）</translation>
    </message>
    <message>
        <source>exact, naive</source>
        <translation>精确，朴素实现</translation>
    </message>
    <message>
        <source>exact, SDPA</source>
        <translation>精确，SDPA</translation>
    </message>
    <message>
        <source>xformers</source>
        <translation>xformers</translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation>图样</translation>
    </message>
    <message>
        <source>Length N</source>
        <translation>长度 N</translation>
    </message>
    <message>
        <source>Window w</source>
        <translation>窗口 w</translation>
    </message>
    <message>
        <source>Dilation d</source>
        <translation>膨胀率 d</translation>
    </message>
    <message>
        <source>Stride</source>
        <translation>步长</translation>
    </message>
    <message>
        <source>Global tokens</source>
        <translation>全局词元</translation>
    </message>
    <message>
        <source>Random keys r</source>
        <translation>随机键数 r</translation>
    </message>
    <message>
        <source>Block size</source>
        <translation>块大小</translation>
    </message>
    <message>
        <source>Window blocks</source>
        <translation>窗口块数</translation>
    </message>
    <message>
        <source>Global blocks</source>
        <translation>全局块数</translation>
    </message>
    <message>
        <source>Random blocks</source>
        <translation>随机块数</translation>
    </message>
    <message>
        <source>Causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>Padding from (0 = none)</source>
        <translation>从此处起为填充（0 = 无）</translation>
    </message>
    <message>
        <source>Layers ℓ</source>
        <translation>层数 ℓ</translation>
    </message>
    <message>
        <source>Block the last query (API test)</source>
        <translation>完全屏蔽最后一个查询（接口测试）</translation>
    </message>
    <message>
        <source>Course tile as the course writes it (−1e9)</source>
        <translation>课程图块按课程代码的写法（−1e9）</translation>
    </message>
    <message>
        <source>Approximation</source>
        <translation>近似方法</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>q, k, v</source>
        <translation>q、k、v</translation>
    </message>
    <message>
        <source>Head size d</source>
        <translation>头维度 d</translation>
    </message>
    <message>
        <source>Random features m</source>
        <translation>随机特征数 m</translation>
    </message>
    <message>
        <source>Orthogonal features</source>
        <translation>正交特征</translation>
    </message>
    <message>
        <source>Features</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>Projected length k</source>
        <translation>投影长度 k</translation>
    </message>
    <message>
        <source>Projection</source>
        <translation>投影</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>a head of the Transformer tab</source>
        <translation>Transformer 页中的一个头</translation>
    </message>
    <message>
        <source>positive (FAVOR+)</source>
        <translation>正特征（FAVOR+）</translation>
    </message>
    <message>
        <source>trigonometric</source>
        <translation>三角函数</translation>
    </message>
    <message>
        <source>s per call</source>
        <translation>每次调用秒数</translation>
    </message>
    <message>
        <source>mean pooling</source>
        <translation>均值池化</translation>
    </message>
    <message>
        <source>span ℓ·w + 1 (dilated: ℓ·d·w + 1)</source>
        <translation>跨度 ℓ·w + 1（膨胀时 ℓ·d·w + 1）</translation>
    </message>
    <message>
        <source>Δ {0:.0e}&lt;br&gt;NaN: {1}</source>
        <translation>Δ {0:.0e}&lt;br&gt;NaN：{1}</translation>
    </message>
    <message>
        <source>Course&apos;s −1e9: rows {1} get 1/{2} per key (ours 0), max |Δweight| {0:.3f}</source>
        <translation>课程的 −1e9：第 {1} 行每个键得到 1/{2}（我们的为 0），最大 |Δ权重| {0:.3f}</translation>
    </message>
    <message>
        <source>relative error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>learned</source>
        <translation>学习得到</translation>
    </message>
    <message>
        <source>identity</source>
        <translation>单位矩阵</translation>
    </message>
    <message>
        <source>Cost, measured</source>
        <translation>开销实测</translation>
    </message>
    <message>
        <source>Largest N</source>
        <translation>最大 N</translation>
    </message>
    <message>
        <source>Features m</source>
        <translation>特征数 m</translation>
    </message>
    <message>
        <source>Time budget per call (s)</source>
        <translation>每次调用的时间预算（秒）</translation>
    </message>
    <message>
        <source>Memory budget (MiB)</source>
        <translation>内存预算（MiB）</translation>
    </message>
    <message>
        <source>layers ℓ</source>
        <translation>层数 ℓ</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键数</translation>
    </message>
    <message>
        <source>sequence length N</source>
        <translation>序列长度 N</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>peak bytes</source>
        <translation>峰值字节数</translation>
    </message>
    <message>
        <source>q/k/v of the Transformer tab as saved in the session ({0} queries, d_k = {1}); its head now is used once it changes.</source>
        <extracomment>the cost arrays a session keeps (``CostTrace`` fields)</extracomment>
        <translation>会话中保存的 Transformer 标签页的 q/k/v（{0} 个查询，d_k = {1}）；该标签页的注意力头一旦改变，即改用其当前的 q/k/v。</translation>
    </message>
    <message>
        <source>A quick measurement on {0}, as saved in the session ({1}). “Measure time and memory” measures on this machine.</source>
        <translation>在 {0} 上的快速测量，取自会话文件（{1}）。点击“测量时间和内存”可在本机重新测量。</translation>
    </message>
    <message>
        <source>Measured on {0}, as saved in the session ({1}). “Measure time and memory” measures on this machine.</source>
        <translation>在 {0} 上实测，取自会话文件（{1}）。点击“测量时间和内存”可在本机重新测量。</translation>
    </message>
    <message>
        <source>Chunked attention (online softmax)</source>
        <translation>分块注意力（在线 softmax）</translation>
    </message>
    <message>
        <source>Chunk size c</source>
        <translation>块大小 c</translation>
    </message>
    <message>
        <source>Query row</source>
        <translation>查询行</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>padding (last quarter)</source>
        <translation>填充（最后四分之一）</translation>
    </message>
    <message>
        <source>no mask</source>
        <translation>无掩码</translation>
    </message>
    <message>
        <source>padding</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>Chunked = exact attention</source>
        <translation>分块 = 精确注意力</translation>
    </message>
    <message>
        <source>Chunked (c = {0}) = exact attention, N = {1}, {2}: max |Δ| {3:.1e}</source>
        <translation>分块（c = {0}）= 精确注意力，N = {1}，{2}：max |Δ| {3:.1e}</translation>
    </message>
    <message>
        <source>chunk size c</source>
        <translation>块大小 c</translation>
    </message>
    <message>
        <source>max |chunked − exact|</source>
        <translation>max |分块 − 精确|</translation>
    </message>
    <message>
        <source>against the app&apos;s exact attention</source>
        <translation>对照本应用的精确注意力</translation>
    </message>
    <message>
        <source>against F.scaled_dot_product_attention</source>
        <translation>对照 F.scaled_dot_product_attention</translation>
    </message>
    <message>
        <source>tolerance 1e-6</source>
        <translation>容差 1e-6</translation>
    </message>
    <message>
        <source>exactly 0</source>
        <translation>恰好为 0</translation>
    </message>
    <message>
        <source>c = {0}: max |Δ| = {1:.1e} (app&apos;s exact), {2:.1e} (SDPA); float32 rounding, for every c tried, dividing N or not</source>
        <translation>c = {0}：max |Δ| = {1:.1e}（本应用的精确注意力），{2:.1e}（SDPA）；都是 float32 舍入误差，所试的每个 c 都如此，无论能否整除 N</translation>
    </message>
    <message>
        <source>Online softmax, chunk by chunk</source>
        <translation>在线 softmax，逐块</translation>
    </message>
    <message>
        <source>Online softmax of query {0}, chunk by chunk (c = {1})</source>
        <translation>查询 {0} 的在线 softmax，逐块（c = {1}）</translation>
    </message>
    <message>
        <source>keys seen</source>
        <translation>已见的键数</translation>
    </message>
    <message>
        <source>score · max m · factor α</source>
        <translation>分数 · 最大值 m · 因子 α</translation>
    </message>
    <message>
        <source>running sum l</source>
        <translation>运行和 l</translation>
    </message>
    <message>
        <source>max m so far</source>
        <translation>目前的最大值 m</translation>
    </message>
    <message>
        <source>chunk&apos;s own max</source>
        <translation>本块自身的最大值</translation>
    </message>
    <message>
        <source>α = e^(m − m_new)</source>
        <translation>α = e^(m − m_new)</translation>
    </message>
    <message>
        <source>sum l (right)</source>
        <translation>和 l（右轴）</translation>
    </message>
    <message>
        <source>After the last chunk: m = {0:.4f}, l = {1:.4f}; from the whole row: max = {2:.4f}, Σ e^(s − max) = {3:.4f}</source>
        <translation>最后一块之后：m = {0:.4f}，l = {1:.4f}；由整行计算：max = {2:.4f}，Σ e^(s − max) = {3:.4f}</translation>
    </message>
    <message>
        <source>Peak memory: exact against chunked</source>
        <translation>峰值内存：精确与分块</translation>
    </message>
    <message>
        <source>Peak memory measured: exact against chunked (c = {0}, d = {1})</source>
        <translation>实测峰值内存：精确与分块（c = {0}，d = {1}）</translation>
    </message>
    <message>
        <source>exact, measured</source>
        <translation>精确，实测</translation>
    </message>
    <message>
        <source>chunked, measured</source>
        <translation>分块，实测</translation>
    </message>
    <message>
        <source>N×N scores (4·N² bytes)</source>
        <translation>N×N 分数（4·N² 字节）</translation>
    </message>
    <message>
        <source>N×c scores (4·N·c bytes)</source>
        <translation>N×c 分数（4·N·c 字节）</translation>
    </message>
    <message>
        <source>Measured with torch&apos;s profiler (allocations − frees). N = {0}: exact {1:.1f} MiB, chunked {2:.2f} MiB</source>
        <translation>用 torch 的性能分析器测量（分配 − 释放）。N = {0}：精确 {1:.1f} MiB，分块 {2:.2f} MiB</translation>
    </message>
    <message>
        <source>Too many chunks to measure: pick a larger chunk.</source>
        <translation>块太多，无法测量：请选更大的块。</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>The operating system refused: {0}{1}.</source>
        <translation>操作系统拒绝了该操作：{0}{1}。</translation>
    </message>
    <message>
        <source>Something went wrong that ArchScope did not expect: {0}: {1}</source>
        <translation>ArchScope 遇到了意外错误：{0}: {1}</translation>
    </message>
    <message>
        <source>ArchScope</source>
        <translation>ArchScope</translation>
    </message>
</context>
<context>
    <name>ExportBar</name>
    <message>
        <source>Cancel</source>
        <extracomment>strips painted ahead of the worker (each at most ``viz.figure_png.STRIP_BYTES``) seconds the first strip waits for a turn in which the views do not change times an export starts over because its view changed before it gives up a strip&apos;s painting aims at this many milliseconds of the GUI thread: its rows follow what the last strip took (within MIN_ROWS and the strip&apos;s size limit). Where even the smallest strip takes long (a busy machine, thousands of scatter points, each painted in Python), the aim rises to twice that, up to MAX_TURN_MS, so that the export still ends: a strip of a few rows costs about as much as a larger one.</extracomment>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>ExportFigureDialog</name>
    <message>
        <source>Export figure</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>The whole tab</source>
        <translation>整个标签页</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Width in pixels</source>
        <translation>宽度（像素）</translation>
    </message>
    <message>
        <source>Scale of the view on screen</source>
        <translation>屏幕视图的缩放倍数</translation>
    </message>
    <message>
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>PNG size</source>
        <translation>PNG 尺寸</translation>
    </message>
    <message>
        <source>The extension chooses the format: .png, .svg or .pdf. SVG and PDF keep text as text.</source>
        <translation>格式由扩展名决定：.png、.svg 或 .pdf。SVG 和 PDF 中的文字仍保留为文本。</translation>
    </message>
</context>
<context>
    <name>FlowsTab</name>
    <message>
        <source>Training: NLL against the entropy floor</source>
        <translation>训练：NLL 与熵下界</translation>
    </message>
    <message>
        <source>log|det J| of each layer (mean)</source>
        <translation>各层的 log|det J|（平均）</translation>
    </message>
    <message>
        <source>Samples through each layer: data → latent</source>
        <translation>样本逐层穿过：数据 → 隐空间</translation>
    </message>
    <message>
        <source>Sampling by the inverse: latent → data</source>
        <translation>用逆映射采样：隐空间 → 数据</translation>
    </message>
    <message>
        <source>“Your points” needs points first: open a file (File → Open…) or draw them.</source>
        <translation>“你的点”需要先有点：请打开文件（文件 → 打开…）或手绘。</translation>
    </message>
    <message>
        <source>mean log|det J|</source>
        <translation>平均 log|det J|</translation>
    </message>
    <message>
        <source>data x</source>
        <translation>数据 x</translation>
    </message>
    <message>
        <source>through the layers</source>
        <translation>穿过各层</translation>
    </message>
    <message>
        <source>samples x</source>
        <translation>样本 x</translation>
    </message>
    <message>
        <source>The data&apos;s density beside the learned exp log p_θ(x) with samples</source>
        <translation>数据密度与学到的 exp log p_θ(x) 并排对照，附样本</translation>
    </message>
    <message>
        <source>latent z (dashed: N(0, I) at 1, 2, 3σ)</source>
        <translation>隐变量 z（虚线：N(0, I) 的 1、2、3σ 等高线）</translation>
    </message>
    <message>
        <source>learned mass on the grid: {0:.3f} (1 if it holds all of it)</source>
        <translation>学到的密度在网格上的质量：{0:.3f}（网格覆盖全部时为 1）</translation>
    </message>
    <message>
        <source>data p(x)</source>
        <translation>数据 p(x)</translation>
    </message>
    <message>
        <source>data histogram</source>
        <translation>数据直方图</translation>
    </message>
    <message>
        <source>model p_θ(x)</source>
        <translation>模型 p_θ(x)</translation>
    </message>
    <message>
        <source>density</source>
        <translation>密度</translation>
    </message>
    <message>
        <source>Press “Train” to fit this flow
by maximum likelihood.</source>
        <translation>点击“训练”，
用最大似然拟合这个流。</translation>
    </message>
    <message>
        <source>NLL of each batch (nats)</source>
        <translation>每个批次的 NLL（奈特）</translation>
    </message>
    <message>
        <source>Course&apos;s TransformedDistribution(base, layers): log p {0:.2f} vs ours {1:.2f}, Δ {2:.1f} nats/point; layers inverted, reversed: Δ {3:.0e}</source>
        <translation>课程的 TransformedDistribution(base, layers)：log p 为 {0:.2f}，我们的为 {1:.2f}，每点 Δ {2:.1f} 奈特；各层取逆并倒序：Δ {3:.0e}</translation>
    </message>
    <message>
        <source>running mean</source>
        <translation>滑动平均</translation>
    </message>
    <message>
        <source>entropy floor (the lowest NLL)</source>
        <translation>熵下限（NLL 的最低值）</translation>
    </message>
    <message>
        <source>NLL below the entropy floor: a bug or overfitting to a small data set</source>
        <translation>NLL 低于熵下界：程序错误，或对小数据集过拟合</translation>
    </message>
    <message>
        <source>step {0}: NLL {1:.3f} nats; floor {2:.3f}</source>
        <translation>第 {0} 步：NLL {1:.3f} 奈特；下界 {2:.3f}</translation>
    </message>
    <message>
        <source>untrained flow (step 0)</source>
        <translation>未训练的流（第 0 步）</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>layer {0}: {1} kept · {2} moves {3}</source>
        <translation>第 {0} 层：{1} 保持不变 · {2} 移动 {3}</translation>
    </message>
    <message>
        <source>layer {0}: every coordinate moves</source>
        <translation>第 {0} 层：所有坐标都移动</translation>
    </message>
    <message>
        <source>{0} unchanged, {1} transformed</source>
        <translation>{0} 不变，{1} 被变换</translation>
    </message>
    <message>
        <source>every coordinate transformed</source>
        <translation>所有坐标都被变换</translation>
    </message>
    <message>
        <source>affine coupling</source>
        <translation>仿射耦合</translation>
    </message>
    <message>
        <source>additive coupling</source>
        <translation>加性耦合</translation>
    </message>
    <message>
        <source>permutation</source>
        <translation>置换</translation>
    </message>
    <message>
        <source>t = {0:.2f} · layer {1} {2}: {3}; log|det J| {4:+.3f}</source>
        <translation>t = {0:.2f} · 第 {1} 层 {2}：{3}；log|det J| {4:+.3f}</translation>
    </message>
    <message>
        <source>Cancel</source>
        <extracomment>frames painted and not yet written, at most how often a waiting writer looks whether the export was cancelled, in seconds</extracomment>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancelling the export…</source>
        <translation>正在取消导出…</translation>
    </message>
    <message>
        <source>Writing {0}…</source>
        <translation>正在写入 {0}…</translation>
    </message>
    <message>
        <source>Exporting PNG frames to {0}: frame {1} of {2}</source>
        <translation>正在导出 PNG 帧到 {0}：第 {1} 帧，共 {2} 帧</translation>
    </message>
    <message>
        <source>Exporting {0}: frame {1} of {2}</source>
        <translation>正在导出 {0}：第 {1} 帧，共 {2} 帧</translation>
    </message>
    <message>
        <source>Wrote {0} frames to {1}.</source>
        <translation>已将 {0} 帧写入 {1}。</translation>
    </message>
    <message>
        <source>Export cancelled: no frames were written to {0}; frames there from before are unchanged.</source>
        <translation>导出已取消：没有帧写入 {0}，其中原有的帧保持不变。</translation>
    </message>
    <message>
        <source>Export cancelled: {0} was not written; a file of that name from before is unchanged.</source>
        <translation>导出已取消：未写入 {0}，原有的同名文件保持不变。</translation>
    </message>
    <message>
        <source>These temporary files could not be removed: {0}</source>
        <translation>以下临时文件无法删除：{0}</translation>
    </message>
    <message>
        <source>An export is running: cancel it in the bar below or wait for it to end</source>
        <translation>正在导出：可在下方进度条中取消，或等待导出完成</translation>
    </message>
    <message>
        <source>Export the animation</source>
        <translation>导出动画</translation>
    </message>
    <message>
        <source>Animated GIF (*.gif);;Animated WebP (*.webp);;PNG frames, numbered, in this folder (*.png)</source>
        <translation>动画 GIF (*.gif);;动画 WebP (*.webp);;编号的 PNG 帧，存入此文件夹 (*.png)</translation>
    </message>
    <message>
        <source>Training {0}: step {1} · NLL {2:.3f} nats · {3:.0f} steps/s</source>
        <translation>训练 {0}：第 {1} 步 · NLL {2:.3f} 奈特 · 每秒 {3:.0f} 步</translation>
    </message>
    <message>
        <source>Use these points</source>
        <translation>使用这些点</translation>
    </message>
    <message>
        <source>Draw points</source>
        <extracomment>(state, models, point-set number) as ``session_state`` last gave them</extracomment>
        <translation>绘制点</translation>
    </message>
    <message>
        <source>untrained: NLL {0:.4g} nats at step 0, floor {1:.4g}; press “Train” to fit the flow by maximum likelihood</source>
        <translation>未训练：第 0 步 NLL {0:.4g} 奈特，下限 {1:.4g}；点击“训练”，用最大似然拟合这个流</translation>
    </message>
    <message>
        <source>course&apos;s p(x)</source>
        <translation>课程的 p(x)</translation>
    </message>
    <message>
        <source>Draw at least {0} points (press and drag in the data panel); {1} were drawn.</source>
        <translation>请至少绘制 {0} 个点（在数据面板中按住并拖动）；目前绘制了 {1} 个。</translation>
    </message>
    <message>
        <source>drawn</source>
        <translation>手绘</translation>
    </message>
    <message>
        <source>2D points (*.csv *.txt *.tsv)</source>
        <translation>二维点（*.csv *.txt *.tsv）</translation>
    </message>
    <message>
        <source>Opened {0}: {1} points.</source>
        <translation>已打开 {0}：{1} 个点。</translation>
    </message>
    <message>
        <source>Flow and training</source>
        <translation>流与训练</translation>
    </message>
    <message>
        <source>Density</source>
        <translation>密度</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Hidden units</source>
        <translation>隐藏单元数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>ActNorm</source>
        <translation>ActNorm</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Clip gradients (0 = off)</source>
        <translation>梯度裁剪（0 = 关闭）</translation>
    </message>
    <message>
        <source>two moons</source>
        <translation>双月牙</translation>
    </message>
    <message>
        <source>circles</source>
        <translation>同心圆</translation>
    </message>
    <message>
        <source>8 gaussians</source>
        <translation>8 个高斯</translation>
    </message>
    <message>
        <source>checkerboard</source>
        <translation>棋盘</translation>
    </message>
    <message>
        <source>two spirals</source>
        <translation>双螺旋</translation>
    </message>
    <message>
        <source>pinwheel</source>
        <translation>风车</translation>
    </message>
    <message>
        <source>rings</source>
        <translation>圆环</translation>
    </message>
    <message>
        <source>swiss roll</source>
        <translation>瑞士卷</translation>
    </message>
    <message>
        <source>your points (File → Open…)</source>
        <translation>你的点（文件 → 打开…）</translation>
    </message>
    <message>
        <source>RealNVP (affine coupling)</source>
        <translation>RealNVP（仿射耦合）</translation>
    </message>
    <message>
        <source>NICE (additive coupling)</source>
        <translation>NICE（加性耦合）</translation>
    </message>
    <message>
        <source>MAF (masked autoregressive)</source>
        <translation>MAF（掩码自回归）</translation>
    </message>
    <message>
        <source>IAF (inverse autoregressive)</source>
        <translation>IAF（逆自回归）</translation>
    </message>
    <message>
        <source>Animation</source>
        <translation>动画</translation>
    </message>
    <message>
        <source>Direction</source>
        <translation>方向</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>点数</translation>
    </message>
    <message>
        <source>Deformed grid</source>
        <translation>变形网格</translation>
    </message>
    <message>
        <source>Layers per second</source>
        <translation>每秒层数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Density as the course writes it</source>
        <translation>按课程代码的写法计算密度</translation>
    </message>
    <message>
        <source>forward: data → latent</source>
        <translation>正向：数据 → 隐空间</translation>
    </message>
    <message>
        <source>inverse: latent → data (sampling)</source>
        <translation>逆向：隐空间 → 数据（采样）</translation>
    </message>
    <message>
        <source>Export animation…</source>
        <translation>导出动画…</translation>
    </message>
    <message>
        <source>Standardise the points</source>
        <translation>将点标准化</translation>
    </message>
    <message>
        <source>Move the points to mean 0 and scale them to standard deviation 1 in each coordinate; open the file again to undo</source>
        <translation>将点平移至均值 0，并将每个坐标缩放到标准差 1；重新打开文件即可撤销</translation>
    </message>
    <message>
        <source>Press and drag in the data panel to draw a density of your own, then train on it</source>
        <translation>在数据面板中按住并拖动，画出你自己的密度，然后在它上面训练</translation>
    </message>
    <message>
        <source>The animation as an animated GIF or WebP, or as numbered PNG frames; 8 frames per layer</source>
        <translation>把动画导出为动画 GIF 或 WebP，或编号的 PNG 帧；每层 8 帧</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>nats per point</source>
        <translation>每点奈特数</translation>
    </message>
    <message>
        <source>These points cannot be trained on as they are.</source>
        <translation>这些点按原样无法用于训练。</translation>
    </message>
    <message>
        <source>The points reach {0:.3g} from their mean, far from the unit scale the flow starts at: training would diverge or crawl. Standardise them first.</source>
        <translation>这些点距其均值可达 {0:.3g}，远离流模型初始的单位尺度：训练会发散或进展极慢。请先将它们标准化。</translation>
    </message>
    <message>
        <source>Standardised the points of {0}: mean 0 and standard deviation 1 in each coordinate. Open the file again for the original points.</source>
        <translation>已将 {0} 的点标准化：每个坐标的均值为 0、标准差为 1。重新打开该文件即可恢复原始点。</translation>
    </message>
</context>
<context>
    <name>GenerationTab</name>
    <message>
        <source>{0:.2f} s</source>
        <extracomment>QCoreApplication.translate, with the strings literal for the extraction tool</extracomment>
        <translation>{0:.2f} 秒</translation>
    </message>
    <message>
        <source>{0:.0f} s</source>
        <translation>{0:.0f} 秒</translation>
    </message>
    <message>
        <source>Making the graphs…</source>
        <translation>正在生成图…</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练图</translation>
    </message>
    <message>
        <source>{0}: {1} training graphs, {2} held out · first {3} of each row; seed {4}</source>
        <translation>{0}：{1} 张训练图，{2} 张留出图 · 每行前 {3} 张；随机种子 {4}</translation>
    </message>
    <message>
        <source> · GraphRNN: press Compare</source>
        <translation> · GraphRNN：请点击“比较”</translation>
    </message>
    <message>
        <source>degree</source>
        <translation>度数</translation>
    </message>
    <message>
        <source>clustering</source>
        <translation>聚类系数</translation>
    </message>
    <message>
        <source>orbits</source>
        <translation>轨道计数</translation>
    </message>
    <message>
        <source>training graphs</source>
        <translation>训练图</translation>
    </message>
    <message>
        <source>{0} held-out graphs, {1} samples per method; the last row is the training graphs themselves (the floor) · time to fit and sample: {2}</source>
        <translation>{0} 个留出图，每种方法 {1} 个样本；最后一行是训练图本身（可达到的下限）· 拟合与采样用时：{2}</translation>
    </message>
    <message>
        <source> · orbits not counted where “—” (graphs too dense, or a file saved before they were)</source>
        <translation> · “—” 处未计算轨道（图太稠密，或文件保存于加入轨道统计之前）</translation>
    </message>
    <message>
        <source>density only: H(p) = {0:.3f}</source>
        <translation>仅知密度：H(p) = {0:.3f}</translation>
    </message>
    <message>
        <source>{0}: a model that knows only the density. Untrained: press “Train” to train GraphRNN (loss: binary cross-entropy of each adjacency entry).</source>
        <translation>{0}：只知道密度的模型。尚未训练：点击“训练”来训练 GraphRNN（损失：每个邻接元素的二元交叉熵）。</translation>
    </message>
    <message>
        <source>GraphRNN loss</source>
        <translation>GraphRNN 损失</translation>
    </message>
    <message>
        <source>weights used: step {0}</source>
        <translation>所用权重：第 {0} 步</translation>
    </message>
    <message>
        <source>step {0} · loss {1:.4f} · the samples use the weights of step {2}, the best of GraphRNN&apos;s own scoring every {3} steps</source>
        <translation>第 {0} 步 · 损失 {1:.4f} · 样本使用第 {2} 步的权重，即 GraphRNN 每 {3} 步自评一次时得分最好的那组</translation>
    </message>
    <message>
        <source>Training graphs and generated graphs</source>
        <translation>训练图与生成的图</translation>
    </message>
    <message>
        <source>MMD² to held-out graphs, lower is closer (GraphRNN&apos;s three distances)</source>
        <translation>与留出图之间的 MMD²，越低越接近（GraphRNN 的三种距离）</translation>
    </message>
    <message>
        <source>GraphRNN training loss</source>
        <translation>GraphRNN 训练损失</translation>
    </message>
    <message>
        <source>Open a folder of graphs first (“Open folder of graphs…”).</source>
        <extracomment>a job made the session of a family (its key, the session), in the job&apos;s thread</extracomment>
        <translation>请先打开一个图文件夹（“打开图文件夹…”）。</translation>
    </message>
    <message>
        <source>folder “{0}”</source>
        <translation>文件夹“{0}”</translation>
    </message>
    <message>
        <source>two communities</source>
        <translation>双社区图</translation>
    </message>
    <message>
        <source>grids</source>
        <translation>网格图</translation>
    </message>
    <message>
        <source>ego networks</source>
        <translation>自我中心网络</translation>
    </message>
    <message>
        <source>GraphRNN</source>
        <translation>GraphRNN</translation>
    </message>
    <message>
        <source>Erdős–Rényi</source>
        <translation>Erdős–Rényi</translation>
    </message>
    <message>
        <source>Barabási–Albert</source>
        <translation>Barabási–Albert</translation>
    </message>
    <message>
        <source>stochastic block model</source>
        <translation>随机块模型</translation>
    </message>
    <message>
        <source>GraphRNN (step {0})</source>
        <translation>GraphRNN（第 {0} 步）</translation>
    </message>
    <message>
        <source>GraphRNN (untrained)</source>
        <translation>GraphRNN（未训练）</translation>
    </message>
    <message>
        <source>Open folder of graphs</source>
        <translation>打开图文件夹</translation>
    </message>
    <message>
        <source>Folder “{0}”: {1} graphs, {2}–{3} nodes</source>
        <translation>文件夹“{0}”：{1} 张图，{2}–{3} 个节点</translation>
    </message>
    <message>
        <source>Tick GraphRNN among the methods compared: the baselines are scored already.</source>
        <translation>请在参与比较的方法中勾选 GraphRNN：各基线模型已经打过分了。</translation>
    </message>
    <message>
        <source>GraphRNN: step {0} · loss {1:.4f} · {2:.1f} steps/s</source>
        <translation>GraphRNN：第 {0} 步 · 损失 {1:.4f} · 每秒 {2:.1f} 步</translation>
    </message>
    <message>
        <source>GraphRNN: drawing {0} graphs and scoring them…</source>
        <translation>GraphRNN：正在抽取 {0} 张图并打分…</translation>
    </message>
    <message>
        <source>GraphRNN sampled and scored.</source>
        <translation>GraphRNN 已完成抽样和打分。</translation>
    </message>
    <message>
        <source>Training done: press Compare to sample GraphRNN.</source>
        <translation>训练完成：点击“比较”从 GraphRNN 抽样。</translation>
    </message>
    <message>
        <source>Training stopped.</source>
        <translation>训练已停止。</translation>
    </message>
    <message>
        <source>Resume training</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Compare: sample GraphRNN and score it</source>
        <translation>比较：从 GraphRNN 抽样并打分</translation>
    </message>
    <message>
        <source>{0} steps trained (each: one batch of up to {1} training graphs)</source>
        <translation>已训练 {0} 步（每步：一批至多 {1} 张训练图）</translation>
    </message>
    <message>
        <source>Graphs</source>
        <translation>图</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>图族</translation>
    </message>
    <message>
        <source>Graphs made</source>
        <translation>生成的图数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>two communities (GraphRNN&apos;s community-small)</source>
        <translation>双社区图（GraphRNN 的“community-small”）</translation>
    </message>
    <message>
        <source>2D grids 4–6 × 4–6</source>
        <translation>二维网格 4–6 × 4–6</translation>
    </message>
    <message>
        <source>ego networks (radius 1)</source>
        <translation>自我中心网络（半径 1）</translation>
    </message>
    <message>
        <source>your folder of graphs</source>
        <translation>你的图文件夹</translation>
    </message>
    <message>
        <source>GraphRNN (learned)</source>
        <translation>GraphRNN（可学习）</translation>
    </message>
    <message>
        <source>Steps per Train</source>
        <translation>每次训练的步数</translation>
    </message>
    <message>
        <source>Methods compared</source>
        <translation>参与比较的方法</translation>
    </message>
    <message>
        <source>Graphs per row</source>
        <translation>每行图数</translation>
    </message>
    <message>
        <source>Open folder of graphs…</source>
        <translation>打开图文件夹…</translation>
    </message>
    <message>
        <source>One small graph per file (GraphML, GEXF, GML, edge list…); the graphs shown stay until the folder is read</source>
        <translation>每个文件一张小图（GraphML、GEXF、GML、边列表等）；文件夹读完之前，当前显示的图保持不变</translation>
    </message>
    <message>
        <source>Start over</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>GraphRNN back to its initial weights; the training so far is dropped</source>
        <translation>GraphRNN 回到初始权重；此前的训练将被丢弃</translation>
    </message>
    <message>
        <source>The baselines are fitted and scored when the graphs change; Compare draws {0} graphs from GraphRNN with the weights its own scoring kept.</source>
        <translation>图改变时，各基线模型会重新拟合并打分；“比较”用 GraphRNN 自评保留下来的权重从中抽取 {0} 张图。</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>BCE per entry</source>
        <translation>每个元素的 BCE</translation>
    </message>
</context>
<context>
    <name>GraphTab</name>
    <message>
        <source>(none)</source>
        <extracomment>what ``apply_state`` takes for communities besides the form&apos;s keys
----------
the state keys that start a job, and the job each starts</extracomment>
        <translation>（无）</translation>
    </message>
    <message>
        <source>DMoN: epoch {0}/{1} · loss {2:.3f} · modularity {3:.3f}</source>
        <translation>DMoN：第 {0}/{1} 轮 · 损失 {2:.3f} · 模块度 {3:.3f}</translation>
    </message>
    <message>
        <source>Finding communities: {0}</source>
        <translation>正在发现社区：{0}</translation>
    </message>
    <message>
        <source>Louvain</source>
        <translation>Louvain</translation>
    </message>
    <message>
        <source>label propagation</source>
        <translation>标签传播</translation>
    </message>
    <message>
        <source>spectral clustering</source>
        <translation>谱聚类</translation>
    </message>
    <message>
        <source>DMoN (GCN)</source>
        <translation>DMoN（GCN）</translation>
    </message>
    <message>
        <source>community (none found yet)</source>
        <translation>社区（尚未发现）</translation>
    </message>
    <message>
        <source>communities: {0}</source>
        <translation>社区：{0}</translation>
    </message>
    <message>
        <source>No communities yet: choose a method and press “Find communities”.</source>
        <translation>尚无社区：选择一种方法并点击“发现社区”。</translation>
    </message>
    <message>
        <source>{0}: {1} communities · modularity {2:.3f}</source>
        <translation>{0}：{1} 个社区 · 模块度 {2:.3f}</translation>
    </message>
    <message>
        <source>NMI against “{0}” {1:.3f}</source>
        <translation>与“{0}”的 NMI {1:.3f}</translation>
    </message>
    <message>
        <source>k by the eigengap</source>
        <translation>k 由特征值间隙确定</translation>
    </message>
    <message>
        <source>opacity: DMoN&apos;s confidence (largest soft assignment)</source>
        <translation>不透明度：DMoN 的置信度（最大的软分配概率）</translation>
    </message>
    <message>
        <source>Communities: DMoN&apos;s loss and modularity while it trains</source>
        <translation>社区：DMoN 训练过程中的损失与模块度</translation>
    </message>
    <message>
        <source>Communities: the normalised Laplacian&apos;s smallest eigenvalues</source>
        <translation>社区：归一化拉普拉斯矩阵的最小特征值</translation>
    </message>
    <message>
        <source>modularity</source>
        <translation>模块度</translation>
    </message>
    <message>
        <source>loss (spectral + collapse)</source>
        <translation>损失（谱项 + 塌缩正则项）</translation>
    </message>
    <message>
        <source>Stopped at epoch {0}: no partition kept.</source>
        <translation>已在第 {0} 轮停止：未保留任何划分。</translation>
    </message>
    <message>
        <source>Training: epoch {0}</source>
        <translation>训练中：第 {0} 轮</translation>
    </message>
    <message>
        <source>modularity of the hard assignment</source>
        <translation>硬分配的模块度</translation>
    </message>
    <message>
        <source>eigenvalue λᵢ</source>
        <translation>特征值 λᵢ</translation>
    </message>
    <message>
        <source>largest gap: k = {0}</source>
        <translation>最大间隙：k = {0}</translation>
    </message>
    <message>
        <source>eigenvalue of the normalised Laplacian</source>
        <translation>归一化拉普拉斯矩阵的特征值</translation>
    </message>
    <message>
        <source>DMoN trains a GCN to maximise modularity: its loss is drawn here while it trains.</source>
        <translation>DMoN 训练一个 GCN 来最大化模块度：训练时其损失曲线画在这里。</translation>
    </message>
    <message>
        <source>Communities</source>
        <translation>社区</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Communities (0: eigengap)</source>
        <translation>社区数（0：按特征值间隙）</translation>
    </message>
    <message>
        <source>DMoN epochs</source>
        <translation>DMoN 训练轮数</translation>
    </message>
    <message>
        <source>NMI against</source>
        <translation>NMI 对照属性</translation>
    </message>
    <message>
        <source>Run the method on the graph shown; the nodes are coloured by community</source>
        <translation>在当前图上运行该方法；节点按社区着色</translation>
    </message>
    <message>
        <source>Find communities</source>
        <translation>发现社区</translation>
    </message>
    <message>
        <source>{0}: {1} nodes, {2} edges</source>
        <translation>{0}：{1} 个节点，{2} 条边</translation>
    </message>
    <message>
        <source>Messages into node {0}, layer {1}</source>
        <extracomment>(gaps, edge, step) of the rows drawn last the two sums&apos; names, drawn over their rows</extracomment>
        <translation>传入节点 {0} 的消息，第 {1} 层</translation>
    </message>
    <message>
        <source>Graph</source>
        <translation>图</translation>
    </message>
    <message>
        <source>Message passing into the selected node</source>
        <translation>传入所选节点的消息传递</translation>
    </message>
    <message>
        <source>Hidden embedding of every node (PCA)</source>
        <translation>每个节点的隐藏嵌入（PCA）</translation>
    </message>
    <message>
        <source>Node classification: loss and accuracy</source>
        <translation>节点分类：损失与准确率</translation>
    </message>
    <message>
        <source>GCN, GraphSAGE, GAT and a baseline on one split</source>
        <translation>同一划分上的 GCN、GraphSAGE、GAT 与基线</translation>
    </message>
    <message>
        <source>A mini-batch: graphs collated into one block-diagonal graph</source>
        <translation>小批量：多张图拼成一张分块对角的图</translation>
    </message>
    <message>
        <source>Graph classification: pooled embedding per graph</source>
        <translation>图分类：每张图的池化嵌入</translation>
    </message>
    <message>
        <source>Link prediction: ROC on held-out edges</source>
        <translation>链接预测：留出边上的 ROC</translation>
    </message>
    <message>
        <source>“Your file” needs a graph file first: File → Open…</source>
        <extracomment>the node looked at belongs to the graph of the moment (loaded after the restore)</extracomment>
        <translation>“你的文件”需要先打开一个图文件：文件 → 打开…</translation>
    </message>
    <message>
        <source>prediction</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>wrong</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>right</source>
        <translation>正确</translation>
    </message>
    <message>
        <source>prediction against label</source>
        <translation>预测与标签对比</translation>
    </message>
    <message>
        <source>degree</source>
        <translation>度</translation>
    </message>
    <message>
        <source>attribute “{0}”</source>
        <translation>属性“{0}”</translation>
    </message>
    <message>
        <source>label “{0}”</source>
        <translation>标签“{0}”</translation>
    </message>
    <message>
        <source>label</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>edge weight</source>
        <translation>边权重</translation>
    </message>
    <message>
        <source>GCN coefficient 1/√(d̂ᵢ d̂ⱼ)</source>
        <translation>GCN 系数 1/√(d̂ᵢ d̂ⱼ)</translation>
    </message>
    <message>
        <source>GAT layer {0} has {1} head(s)</source>
        <translation>GAT 第 {0} 层有 {1} 个头</translation>
    </message>
    <message>
        <source>; head {0} does not exist: head {1} is shown</source>
        <translation>；第 {0} 个头不存在：显示第 {1} 个头</translation>
    </message>
    <message>
        <source>GAT attention αᵢⱼ (half edge at i)</source>
        <translation>GAT 注意力 αᵢⱼ（靠近 i 的半条边）</translation>
    </message>
    <message>
        <source>sampled at hop</source>
        <translation>采样所在跳数</translation>
    </message>
    <message>
        <source>top-scoring non-edges</source>
        <translation>得分最高的非边</translation>
    </message>
    <message>
        <source>Click a node on the graph.</source>
        <translation>在图上点击一个节点。</translation>
    </message>
    <message>
        <source>aggregate ({0})</source>
        <translation>聚合（{0}）</translation>
    </message>
    <message>
        <source>update hᵢ′</source>
        <translation>更新 hᵢ′</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>update = the layer&apos;s output (max |Δ| {0:.1e})</source>
        <translation>更新 = 层的输出（最大 |Δ| {0:.1e}）</translation>
    </message>
    <message>
        <source>{0} layer {1} aggregates with {2}; the update row is the real layer&apos;s output at this node, computed by the layer itself.</source>
        <translation>{0} 第 {1} 层用 {2} 聚合；“更新”一行是真实层在这个节点上的输出，由层本身计算。</translation>
    </message>
    <message>
        <source>what if: {0} instead of {1}</source>
        <translation>假设：用 {0} 代替 {1}</translation>
    </message>
    <message>
        <source>{0} layer {1} really aggregates with {2}; the rows below show what the same weights would give with {3}, not the model&apos;s output.</source>
        <translation>{0} 第 {1} 层实际用 {2} 聚合；下面几行显示同样的权重改用 {3} 会得到什么，并非模型的输出。</translation>
    </message>
    <message>
        <source>PC {0} ({1:.0%} of the variance)</source>
        <translation>主成分 {0}（解释 {1:.0%} 方差）</translation>
    </message>
    <message>
        <source>epoch {0}: test accuracy {1:.2f}</source>
        <translation>第 {0} 轮：测试准确率 {1:.2f}</translation>
    </message>
    <message>
        <source>No labels: choose a label attribute to train.</source>
        <translation>没有标签：请选择一个标签属性再训练。</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>train accuracy</source>
        <translation>训练准确率</translation>
    </message>
    <message>
        <source>validation accuracy</source>
        <translation>验证准确率</translation>
    </message>
    <message>
        <source>test accuracy</source>
        <translation>测试准确率</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Untrained (epoch {0}): press “Train”.</source>
        <translation>未训练（第 {0} 轮）：点击“训练”。</translation>
    </message>
    <message>
        <source>epoch {0}: loss {1:.3f} · test accuracy {2:.2f}</source>
        <translation>第 {0} 轮：损失 {1:.3f} · 测试准确率 {2:.2f}</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>{0}, {1} layers</source>
        <translation>{0}，{1} 层</translation>
    </message>
    <message>
        <source>, not normalised</source>
        <translation>，未归一化</translation>
    </message>
    <message>
        <source>baseline of {0} layers</source>
        <translation>{0} 层的基线</translation>
    </message>
    <message>
        <source>untrained</source>
        <translation>未训练</translation>
    </message>
    <message>
        <source>after {0} epochs</source>
        <translation>训练 {0} 轮后</translation>
    </message>
    <message>
        <source>Over-smoothing: energy and distance per layer</source>
        <translation>过平滑：每层的能量与距离</translation>
    </message>
    <message>
        <source>energy 0</source>
        <translation>能量为 0</translation>
    </message>
    <message>
        <source>Test accuracy against depth</source>
        <translation>测试准确率随深度的变化</translation>
    </message>
    <message>
        <source>as initialised</source>
        <translation>初始化时</translation>
    </message>
    <message>
        <source>layer (0 = input)</source>
        <translation>层（0 = 输入）</translation>
    </message>
    <message>
        <source>Dirichlet energy E</source>
        <translation>狄利克雷能量 E</translation>
    </message>
    <message>
        <source>mean distance d</source>
        <translation>平均距离 d</translation>
    </message>
    <message>
        <source>E, L = {0}</source>
        <translation>E，L = {0}</translation>
    </message>
    <message>
        <source>d, L = {0}</source>
        <translation>d，L = {0}</translation>
    </message>
    <message>
        <source>{0} · last layer: E {1:.3g} (baseline {2:.3g}), d {3:.3g} (baseline {4:.3g}) · E = ½ Σ_(i,j)∈E ‖xᵢ/√(1+dᵢ) − xⱼ/√(1+dⱼ)‖², d = mean ‖xᵢ − xⱼ‖</source>
        <translation>{0} · 最后一层：E {1:.3g}（基线 {2:.3g}），d {3:.3g}（基线 {4:.3g}）· E = ½ Σ_(i,j)∈E ‖xᵢ/√(1+dᵢ) − xⱼ/√(1+dⱼ)‖²，d = ‖xᵢ − xⱼ‖ 的平均值</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>{0}, {1} epochs each</source>
        <translation>{0}，每个训练 {1} 轮</translation>
    </message>
    <message>
        <source>Press “Depth study” to train a model of every depth 1–{0} ({1} epochs each).</source>
        <translation>按“深度研究”为 1–{0} 的每个深度各训练一个模型（每个 {1} 轮）。</translation>
    </message>
    <message>
        <source>{0} of {1} depths trained · best: {2} layers</source>
        <translation>已训练 {1} 个深度中的 {0} 个 · 最佳：{2} 层</translation>
    </message>
    <message>
        <source>baseline = nearest labelled node</source>
        <translation>基线 = 最近的带标签节点</translation>
    </message>
    <message>
        <source>Press “Compare” to train all three on this split.</source>
        <translation>点击“比较”，在这个划分上训练三种模型。</translation>
    </message>
    <message>
        <source>node of the batch</source>
        <translation>批中的节点</translation>
    </message>
    <message>
        <source>batch = {0} · ptr = {1}</source>
        <translation>batch = {0} · ptr = {1}</translation>
    </message>
    <message>
        <source>Press “Train graph classifier”: house vs cycle motifs.</source>
        <translation>点击“训练图分类器”：房屋形与环形基序。</translation>
    </message>
    <message>
        <source>house</source>
        <translation>房屋形</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>{0} trained, epoch {1}</source>
        <translation>{0} 已训练，第 {1} 轮</translation>
    </message>
    <message>
        <source>{0} after {1} epochs: test accuracy {2:.2f}.</source>
        <translation>{0} 训练 {1} 轮后：测试准确率 {2:.2f}。</translation>
    </message>
    <message>
        <source>Working out the untrained models&apos; accuracies…</source>
        <translation>正在计算未训练模型的准确率…</translation>
    </message>
    <message>
        <source>No labels: choose a label attribute to compare.</source>
        <translation>没有标签：请选择一个标签属性再比较。</translation>
    </message>
    <message>
        <source>cycle</source>
        <translation>环形</translation>
    </message>
    <message>
        <source>PC {0}</source>
        <translation>主成分 {0}</translation>
    </message>
    <message>
        <source>predicted motif</source>
        <translation>预测的基序</translation>
    </message>
    <message>
        <source>untrained: press “Train graph classifier”</source>
        <translation>未训练：点击“训练图分类器”</translation>
    </message>
    <message>
        <source>epoch {0}</source>
        <translation>第 {0} 轮</translation>
    </message>
    <message>
        <source>{0} pooling · train accuracy {1:.2f} · test {2:.2f}</source>
        <translation>{0} 池化 · 训练准确率 {1:.2f} · 测试 {2:.2f}</translation>
    </message>
    <message>
        <source>Dashed: chance (AUC 0.5).</source>
        <translation>虚线：随机猜测（AUC 0.5）。</translation>
    </message>
    <message>
        <source>Press “Train link predictor”.</source>
        <translation>点击“训练链接预测器”。</translation>
    </message>
    <message>
        <source>false positive rate</source>
        <translation>假阳性率</translation>
    </message>
    <message>
        <source>true positive rate</source>
        <translation>真阳性率</translation>
    </message>
    <message>
        <source>untrained, AUC {0:.3f}</source>
        <translation>未训练，AUC {0:.3f}</translation>
    </message>
    <message>
        <source>epoch {0}, AUC {1:.3f}</source>
        <translation>第 {0} 轮，AUC {1:.3f}</translation>
    </message>
    <message>
        <source>Held-out test edges against as many non-edges.</source>
        <translation>留出的测试边与同样数量的非边对比。</translation>
    </message>
    <message>
        <source>node {0} (index {1}) · degree {2}</source>
        <translation>节点 {0}（索引 {1}）· 度 {2}</translation>
    </message>
    <message>
        <source>label: {0}</source>
        <translation>标签：{0}</translation>
    </message>
    <message>
        <source>prediction: {0} (p = {1:.2f})</source>
        <translation>预测：{0}（p = {1:.2f}）</translation>
    </message>
    <message>
        <source>graph {0}: motif {1}, predicted {2} ({3})</source>
        <translation>图 {0}：基序 {1}，预测为 {2}（{3}）</translation>
    </message>
    <message>
        <source>train</source>
        <translation>训练集</translation>
    </message>
    <message>
        <source>test</source>
        <translation>测试集</translation>
    </message>
    <message>
        <source>Comparing: {0}</source>
        <translation>比较中：{0}</translation>
    </message>
    <message>
        <source>Training: epoch {0} · loss {1:.3f} · val {2:.2f} · test {3:.2f} · {4:.0f} epochs/s</source>
        <translation>训练中：第 {0} 轮 · 损失 {1:.3f} · 验证 {2:.2f} · 测试 {3:.2f} · 每秒 {4:.0f} 轮</translation>
    </message>
    <message>
        <source>Graph classifier: epoch {0} · loss {1:.3f} · test {2:.2f}</source>
        <translation>图分类器：第 {0} 轮 · 损失 {1:.3f} · 测试 {2:.2f}</translation>
    </message>
    <message>
        <source>Link predictor: epoch {0} · loss {1:.3f} · test AUC {2:.3f}</source>
        <translation>链接预测器：第 {0} 轮 · 损失 {1:.3f} · 测试 AUC {2:.3f}</translation>
    </message>
    <message>
        <source>Train more</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Train graph classifier</source>
        <translation>训练图分类器</translation>
    </message>
    <message>
        <source>Train link predictor</source>
        <translation>训练链接预测器</translation>
    </message>
    <message>
        <source>{0} epochs trained</source>
        <translation>已训练 {0} 轮</translation>
    </message>
    <message>
        <source>Graphs (*.graphml *.gexf *.gml *.net *.json *.csv *.tsv *.txt *.edges *.edgelist *.pt *.pth);;All files (*)</source>
        <translation>图 (*.graphml *.gexf *.gml *.net *.json *.csv *.tsv *.txt *.edges *.edgelist *.pt *.pth);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Opened {0}: {1}</source>
        <translation>已打开 {0}：{1}</translation>
    </message>
    <message>
        <source>There is nothing to save yet: the graph has not been drawn.</source>
        <translation>还没有可保存的内容：图尚未绘制。</translation>
    </message>
    <message>
        <source>Saved {0}.</source>
        <translation>已保存 {0}。</translation>
    </message>
    <message>
        <source>Save the graph with results</source>
        <translation>保存带结果的图</translation>
    </message>
    <message>
        <source>GraphML (*.graphml);;GEXF (*.gexf)</source>
        <translation>GraphML (*.graphml);;GEXF (*.gexf)</translation>
    </message>
    <message>
        <source>Zachary&apos;s karate club</source>
        <translation>Zachary 空手道俱乐部</translation>
    </message>
    <message>
        <source>Les Misérables</source>
        <translation>悲惨世界</translation>
    </message>
    <message>
        <source>Florentine families</source>
        <translation>佛罗伦萨家族</translation>
    </message>
    <message>
        <source>Davis southern women</source>
        <translation>Davis 南方妇女</translation>
    </message>
    <message>
        <source>stochastic block model</source>
        <translation>随机块模型</translation>
    </message>
    <message>
        <source>Barabási–Albert + house motifs</source>
        <translation>Barabási–Albert + 房屋形基序</translation>
    </message>
    <message>
        <source>grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>random geometric graph</source>
        <translation>随机几何图</translation>
    </message>
    <message>
        <source>your file (File → Open…)</source>
        <translation>你的文件（文件 → 打开…）</translation>
    </message>
    <message>
        <source>college football (Gephi)</source>
        <translation>大学橄榄球（Gephi）</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>spring</source>
        <translation>弹簧</translation>
    </message>
    <message>
        <source>Kamada–Kawai</source>
        <translation>Kamada–Kawai</translation>
    </message>
    <message>
        <source>spectral</source>
        <translation>谱布局</translation>
    </message>
    <message>
        <source>circular</source>
        <translation>环形</translation>
    </message>
    <message>
        <source>shell</source>
        <translation>同心圆</translation>
    </message>
    <message>
        <source>positions in the data</source>
        <translation>数据中的位置</translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Features</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>Colour attribute</source>
        <translation>着色属性</translation>
    </message>
    <message>
        <source>Model (node classification)</source>
        <translation>模型（节点分类）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Hidden units</source>
        <translation>隐藏单元</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>注意力头数</translation>
    </message>
    <message>
        <source>Aggregator</source>
        <translation>聚合器</translation>
    </message>
    <message>
        <source>Edge weights in GCN</source>
        <translation>GCN 使用边权重</translation>
    </message>
    <message>
        <source>Labelled nodes per class</source>
        <translation>每类带标签节点数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>GraphML or GEXF with predictions, GCN coefficients, GAT attention and communities as attributes</source>
        <translation>GraphML 或 GEXF 文件，预测、GCN 系数、GAT 注意力和社区作为属性写入</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Colour nodes by</source>
        <translation>节点着色依据</translation>
    </message>
    <message>
        <source>Node size</source>
        <translation>节点大小</translation>
    </message>
    <message>
        <source>Edges show</source>
        <translation>边显示</translation>
    </message>
    <message>
        <source>Selected node</source>
        <translation>所选节点</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Aggregation</source>
        <translation>聚合</translation>
    </message>
    <message>
        <source>Sample size per hop</source>
        <translation>每跳采样数</translation>
    </message>
    <message>
        <source>Sampling seed</source>
        <translation>采样种子</translation>
    </message>
    <message>
        <source>right or wrong</source>
        <translation>正确或错误</translation>
    </message>
    <message>
        <source>attribute</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>community</source>
        <translation>社区</translation>
    </message>
    <message>
        <source>uniform</source>
        <translation>统一</translation>
    </message>
    <message>
        <source>the colour attribute (numeric)</source>
        <translation>着色属性（数值型）</translation>
    </message>
    <message>
        <source>plain</source>
        <translation>普通</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>GCN coefficients</source>
        <translation>GCN 系数</translation>
    </message>
    <message>
        <source>GNNExplainer</source>
        <translation>GNNExplainer</translation>
    </message>
    <message>
        <source>GAT attention</source>
        <translation>GAT 注意力</translation>
    </message>
    <message>
        <source>No test node is predicted correctly: there is no prediction worth explaining yet. Train more, or click a node and press “Explain”.</source>
        <extracomment>the job that explains the correctly predicted test nodes and shows the best one features listed in the readout&apos;s bars the wait before the readout is scrolled into view (see ``show_readout``)</extracomment>
        <translation>没有预测正确的测试节点：目前还没有值得解释的预测。请继续训练，或点击一个节点后按“解释”。</translation>
    </message>
    <message>
        <source>Train the node classifier first: an untrained model&apos;s predictions have nothing to explain.</source>
        <translation>请先训练节点分类器：未训练模型的预测没有什么可解释的。</translation>
    </message>
    <message>
        <source>Select a node first: click it on the graph.</source>
        <translation>请先选择一个节点：在图上点击它。</translation>
    </message>
    <message>
        <source>The attention explanation needs a GAT: choose GAT and train it, or use GNNExplainer.</source>
        <translation>注意力解释需要 GAT 模型：请选择 GAT 并训练，或改用 GNNExplainer。</translation>
    </message>
    <message>
        <source>Explaining the {0} correctly predicted test nodes: node {1} ({2}/{0}) · epoch {3}/{4}</source>
        <translation>正在解释 {0} 个预测正确的测试节点：节点 {1}（{2}/{0}）· 第 {3}/{4} 轮</translation>
    </message>
    <message>
        <source>GNNExplainer: epoch {0}/{1} · loss {2:.3f}</source>
        <translation>GNNExplainer：第 {0}/{1} 轮 · 损失 {2:.3f}</translation>
    </message>
    <message>
        <source>Explanation ready</source>
        <translation>解释已完成</translation>
    </message>
    <message>
        <source>identity of node {0}</source>
        <translation>节点 {0} 的独热编码</translation>
    </message>
    <message>
        <source>degree {0}</source>
        <translation>度 = {0}</translation>
    </message>
    <message>
        <source>feature {0}</source>
        <translation>特征 {0}</translation>
    </message>
    <message>
        <source>No feature mask: the attention explanation weighs edges only.</source>
        <translation>没有特征掩码：注意力解释只衡量边的重要性。</translation>
    </message>
    <message>
        <source>Feature mask (the features the prediction relies on most):</source>
        <translation>特征掩码（预测最依赖的特征）：</translation>
    </message>
    <message>
        <source>mask &gt; {0:g}</source>
        <translation>掩码 &gt; {0:g}</translation>
    </message>
    <message>
        <source>the top {0} by importance</source>
        <translation>重要性最高的 {0} 条</translation>
    </message>
    <message>
        <source>This prediction is wrong: the explanation shows what the model&apos;s error rests on, not the node&apos;s community.</source>
        <translation>这个预测是错的：解释显示的是模型的错误依赖什么，而不是该节点所属的社团。</translation>
    </message>
    <message>
        <source>Fidelity+ 0 means these edges were not needed: the model predicts the same without them, so they do not show why it decided.</source>
        <translation>Fidelity+ 为 0 表示这些边并非必需：没有它们模型的预测也不变，所以它们不能说明模型为何这样决定。</translation>
    </message>
    <message>
        <source>Fidelity− 1 means these edges alone do not give the prediction.</source>
        <translation>Fidelity− 为 1 表示仅凭这些边得不到这个预测。</translation>
    </message>
    <message>
        <source>Fidelity+ 1 and fidelity− 0: the prediction needs these edges, and they suffice for it.</source>
        <translation>Fidelity+ 为 1、fidelity− 为 0：预测需要这些边，而且有它们就足够了。</translation>
    </message>
    <message>
        <source>No explanation yet: train the classifier, click a node, press “Explain”.</source>
        <translation>尚无解释：先训练分类器，点击一个节点，再按“解释”。</translation>
    </message>
    <message>
        <source>{0} for node {1}: predicted class “{2}”</source>
        <translation>{0} 解释节点 {1}：预测类别为“{2}”</translation>
    </message>
    <message>
        <source> (its label: “{0}”)</source>
        <translation>（其标签为“{0}”）</translation>
    </message>
    <message>
        <source>the explanation ({0})</source>
        <translation>解释（{0}）</translation>
    </message>
    <message>
        <source>changes</source>
        <translation>改变</translation>
    </message>
    <message>
        <source>stays the same</source>
        <translation>保持不变</translation>
    </message>
    <message>
        <source>Node chosen by rule among the {0} correctly predicted test nodes: the largest fidelity+ − fidelity− ({1:+.0f}, reached by {2}), ties broken by the largest drop of the predicted class&apos;s probability without the explanation (here {3:.2f}).</source>
        <translation>该节点按规则从 {0} 个预测正确的测试节点中选出：fidelity+ − fidelity− 最大（{1:+.0f}，共 {2} 个节点达到），相同时取去掉解释后预测类别概率下降最多者（这里为 {3:.2f}）。</translation>
    </message>
    <message>
        <source>The explanation: {0} edges ({1}), of the {2} edges (each direction counted) with any importance.</source>
        <translation>解释：{0} 条边（{1}），在有一定重要性的 {2} 条边中（两个方向分别计数）。</translation>
    </message>
    <message>
        <source>Fidelity+ {0:.0f}: without those {1} edges the prediction {2}.</source>
        <translation>Fidelity+ {0:.0f}：去掉这 {1} 条边后，预测{2}。</translation>
    </message>
    <message>
        <source>Fidelity− {0:.0f}: with only those edges the prediction {1}.</source>
        <translation>Fidelity− {0:.0f}：只保留这些边时，预测{1}。</translation>
    </message>
    <message>
        <source>Probability of the predicted class: whole graph {0:.2f}, the explanation only {1:.2f}, everything but it {2:.2f}.</source>
        <translation>预测类别的概率：整张图 {0:.2f}，仅解释子图 {1:.2f}，除解释外的其余部分 {2:.2f}。</translation>
    </message>
    <message>
        <source>importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>dashed: the explanation, {1} edges ({2}); width and colour of each edge: {0}&apos;s importance</source>
        <translation>虚线：解释，共 {1} 条边（{2}）；每条边的宽度和颜色：{0} 给出的重要性</translation>
    </message>
    <message>
        <source>Explain a prediction</source>
        <translation>解释一个预测</translation>
    </message>
    <message>
        <source>GNNExplainer epochs</source>
        <translation>GNNExplainer 轮数</translation>
    </message>
    <message>
        <source>Why did the trained classifier predict this class for the selected node? The important edges are drawn on the graph</source>
        <translation>训练好的分类器为什么给选中的节点预测这个类别？重要的边会画在图上</translation>
    </message>
    <message>
        <source>Explain</source>
        <translation>解释</translation>
    </message>
    <message>
        <source>GraphSAGE sample</source>
        <translation>GraphSAGE 采样</translation>
    </message>
    <message>
        <source>mean over heads</source>
        <translation>各头均值</translation>
    </message>
    <message>
        <source>max over heads</source>
        <translation>各头最大值</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>第 {0} 个头</translation>
    </message>
    <message>
        <source>the layer&apos;s own</source>
        <translation>层自身的</translation>
    </message>
    <message>
        <source>sum</source>
        <translation>求和</translation>
    </message>
    <message>
        <source>Graph classification and link prediction</source>
        <translation>图分类与链接预测</translation>
    </message>
    <message>
        <source>Global pooling</source>
        <translation>全局池化</translation>
    </message>
    <message>
        <source>Graphs in the batch</source>
        <translation>批中的图数</translation>
    </message>
    <message>
        <source>Predicted links drawn</source>
        <translation>显示的预测链接数</translation>
    </message>
    <message>
        <source>Save graph with results…</source>
        <translation>保存带结果的图…</translation>
    </message>
    <message>
        <source>{0} node</source>
        <extracomment>English warnings of models.graphs that ``describe_document`` words itself</extracomment>
        <translation>{0} 个节点</translation>
    </message>
    <message>
        <source>{0} nodes</source>
        <translation>{0} 个节点</translation>
    </message>
    <message>
        <source>{0} edge</source>
        <translation>{0} 条边</translation>
    </message>
    <message>
        <source>{0} edges</source>
        <translation>{0} 条边</translation>
    </message>
    <message>
        <source>directed</source>
        <translation>有向</translation>
    </message>
    <message>
        <source>undirected</source>
        <translation>无向</translation>
    </message>
    <message>
        <source>weighted</source>
        <translation>带权</translation>
    </message>
    <message>
        <source>{0} attribute</source>
        <translation>{0} 个属性</translation>
    </message>
    <message>
        <source>{0} attributes</source>
        <translation>{0} 个属性</translation>
    </message>
    <message>
        <source>{0}.</source>
        <translation>{0}。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>No feature attributes: identity features (one column per node, {0} columns).</source>
        <translation>没有特征属性：使用单位矩阵特征（每个节点一列，共 {0} 列）。</translation>
    </message>
    <message>
        <source>No feature attributes: one-hot degree features ({0} columns, degree capped at 63).</source>
        <translation>没有特征属性：使用度的独热编码特征（共 {0} 列，度上限截断为 63）。</translation>
    </message>
    <message>
        <source>No feature attributes: one-hot degree features ({0} columns).</source>
        <translation>没有特征属性：使用度的独热编码特征（共 {0} 列）。</translation>
    </message>
    <message>
        <source>{0} (one-hot, {1})</source>
        <translation>{0}（独热编码，{1} 类）</translation>
    </message>
    <message>
        <source>, …</source>
        <translation>，……</translation>
    </message>
    <message>
        <source>Features from {0} attributes ({1} columns): {2}.</source>
        <translation>特征来自 {0} 个属性（共 {1} 列）：{2}。</translation>
    </message>
    <message>
        <source>Labels ({0}): the 4 communities of PyG&apos;s KarateClub; {1} is the split after the conflict (2 classes).</source>
        <translation>标签（{0}）：PyG 的 KarateClub 数据集中的 4 个社团；{1} 是冲突之后俱乐部的分裂（2 类）。</translation>
    </message>
    <message>
        <source>Labels ({0}) are Louvain communities found by networkx (weighted, seed = {1}); they are not part of the data set.</source>
        <translation>标签（{0}）是用 networkx 的 Louvain 算法找到的社团（带权，种子 = {1}），并非数据集本身的一部分。</translation>
    </message>
    <message>
        <source>Labels ({0}): the side of the bipartite graph ({1} or {2}).</source>
        <translation>标签（{0}）：节点位于二部图的哪一侧（{1} 或 {2}）。</translation>
    </message>
    <message>
        <source>Labels ({0}): the block of the stochastic block model each node was drawn in.</source>
        <translation>标签（{0}）：每个节点在随机块模型中所属的块。</translation>
    </message>
    <message>
        <source>Labels ({0}): 0 base graph, 1 house top, 2 house middle, 3 house bottom, as in GNNExplainer&apos;s BA-Shapes.</source>
        <translation>标签（{0}）：0 为基础图，1 为房屋顶部，2 为房屋中部，3 为房屋底部，与 GNNExplainer 的 BA-Shapes 相同。</translation>
    </message>
    <message>
        <source>Labels ({0}): the quarter of the grid a node lies in.</source>
        <translation>标签（{0}）：节点位于网格的哪个象限。</translation>
    </message>
    <message>
        <source>American college football, fall 2000 (Girvan and Newman): 115 teams, an edge per game. Labels ({0}): the 12 groups of Gephi&apos;s file, most likely a fitted block model, not the conferences.</source>
        <translation>2000 年秋季美国大学橄榄球赛（Girvan 与 Newman）：115 支球队，每场比赛一条边。标签（{0}）：Gephi 文件中的 12 个分组，很可能是拟合得到的块模型，而不是真实的分区联盟。</translation>
    </message>
    <message>
        <source>Labels ({0}): which quarter of the unit square&apos;s width the node lies in (x-coordinate bucket, 4 classes).</source>
        <translation>标签（{0}）：节点的 x 坐标落在单位正方形宽度的哪个四分之一区间（4 类）。</translation>
    </message>
    <message>
        <source>{0} parallel edges merged into one each (other edge attributes from the first edge).</source>
        <translation>{0} 条平行边各自合并为一条（其他边属性取自第一条边）。</translation>
    </message>
    <message>
        <source>{0} self-loops kept.</source>
        <translation>保留了 {0} 个自环。</translation>
    </message>
    <message>
        <source>{0} isolated nodes (no edges).</source>
        <translation>{0} 个孤立节点（没有边）。</translation>
    </message>
    <message>
        <source>Node ids are not integers: node i of the tensors is the i-th node of the file (see node_ids).</source>
        <translation>节点 id 不是整数：张量中的节点 i 是文件中的第 i 个节点（见 node_ids）。</translation>
    </message>
    <message>
        <source>Directed graph: data.edge_index keeps the direction as read (messages flow source → target); data.edge_index_undirected is the symmetric version.</source>
        <translation>有向图：data.edge_index 保留读入时的方向（消息从源节点流向目标节点）；data.edge_index_undirected 是对称化后的版本。</translation>
    </message>
    <message>
        <source>Depth study: {0}/{1} epochs</source>
        <translation>深度研究：{0}/{1} 轮</translation>
    </message>
    <message>
        <source>Working out the depth study…</source>
        <translation>正在计算深度研究…</translation>
    </message>
    <message>
        <source>Depth and over-smoothing</source>
        <translation>深度与过平滑</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>GCN normalisation</source>
        <translation>GCN 归一化</translation>
    </message>
    <message>
        <source>energy and distance per layer</source>
        <translation>每层的能量与距离</translation>
    </message>
    <message>
        <source>test accuracy against depth</source>
        <translation>测试准确率随深度的变化</translation>
    </message>
    <message>
        <source>On: D̂^-1/2 (A+I) D̂^-1/2, GCNConv(normalize=True). Off: the plain sum over A+I, GCNConv(normalize=False)</source>
        <translation>开：D̂^-1/2 (A+I) D̂^-1/2，即 GCNConv(normalize=True)。关：在 A+I 上直接求和，即 GCNConv(normalize=False)</translation>
    </message>
    <message>
        <source>Train the run and a 2-layer baseline side by side, then a model of every depth 1–8</source>
        <translation>并排训练当前模型和 2 层基线，然后为 1–8 的每个深度各训练一个模型</translation>
    </message>
    <message>
        <source>Depth study</source>
        <translation>深度研究</translation>
    </message>
</context>
<context>
    <name>JobBar</name>
    <message>
        <source>Cancel</source>
        <extracomment>another tab by key (None if there is none): a tab may read what another shows, e.g. the efficient-attention tab takes q/k/v from the Transformer tab&apos;s head save the tab of this key as a session at a path in the background, as File → Save session… does (the window&apos;s export bar; raises while an export runs); None for a tab outside a window, which saves on the spot</extracomment>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>ArchScope — see neural networks run</source>
        <translation>ArchScope — 观察神经网络的运行</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>This tab opens no files.</source>
        <translation>此标签页不支持打开文件。</translation>
    </message>
    <message>
        <source>Export &amp;figure…</source>
        <translation>导出图表(&amp;F)…</translation>
    </message>
    <message>
        <source>Some saved settings could not be used and were reset to their defaults: {0}.</source>
        <translation>部分已保存的设置无法使用，已恢复为默认值：{0}。</translation>
    </message>
    <message>
        <source>Export &amp;data…</source>
        <translation>导出数据(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Guided &amp;tour panel</source>
        <translation>导览面板(&amp;T)</translation>
    </message>
    <message>
        <source>Tool&amp;bar</source>
        <translation>工具栏(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Reset zoom of all views</source>
        <translation>重置所有视图的缩放(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About ArchScope</source>
        <translation>关于 ArchScope(&amp;A)</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>The saved device {0} is not available here; using cpu.</source>
        <translation>已保存的设备 {0} 在此不可用，改用 cpu。</translation>
    </message>
    <message>
        <source>Device: {0}</source>
        <translation>设备：{0}</translation>
    </message>
    <message>
        <source>Loading PyTorch…</source>
        <translation>正在加载 PyTorch…</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <source>Export cancelled: {0} was not changed.</source>
        <translation>导出已取消：{0} 未被改动。</translation>
    </message>
    <message>
        <source>Exporting {0}: {1} % (training paused until the figure is painted)</source>
        <translation>正在导出 {0}：{1} %（训练已暂停，图绘制完成后继续）</translation>
    </message>
    <message>
        <source>Exporting {0}: {1} %</source>
        <translation>正在导出 {0}：{1} %</translation>
    </message>
    <message>
        <source>This view has no data yet.</source>
        <translation>此视图尚无数据。</translation>
    </message>
    <message>
        <source>An export is running; wait for it or cancel it first.</source>
        <translation>正在导出；请等待其完成或先取消。</translation>
    </message>
    <message>
        <source>Saving {0}: {1} %</source>
        <translation>正在保存 {0}：{1} %</translation>
    </message>
    <message>
        <source>Export data of “{0}”</source>
        <translation>导出“{0}”的数据</translation>
    </message>
    <message>
        <source>Saving cancelled: {0} was not changed.</source>
        <translation>保存已取消：{0} 未被改动。</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>About ArchScope</source>
        <translation>关于 ArchScope</translation>
    </message>
    <message>
        <source>ArchScope runs the models of an advanced deep-learning course live and shows them.</source>
        <translation>ArchScope 实时运行高级深度学习课程中的模型，并将其可视化呈现。</translation>
    </message>
    <message>
        <source>Preparing “{0}”…</source>
        <translation>正在准备“{0}”…</translation>
    </message>
</context>
<context>
    <name>MetaTab</name>
    <message>
        <source>MSE vs adaptation steps ({0} test tasks, 95% CI)</source>
        <translation>MSE 随适应步数的变化（{0} 个测试任务，95% 置信区间）</translation>
    </message>
    <message>
        <source>Meta-training: query MSE after the inner loop</source>
        <translation>元训练：内循环之后的查询集 MSE</translation>
    </message>
    <message>
        <source>Prototypical network: embedding</source>
        <translation>原型网络：嵌入空间</translation>
    </message>
    <message>
        <source>Adapting to a new task from K points (amplitudes up to {0:g}: out of distribution)</source>
        <translation>用 K 个点适应新任务（振幅最大到 {0:g}：超出训练分布）</translation>
    </message>
    <message>
        <source>Adapting to a new task from K points</source>
        <translation>用 K 个点适应新任务</translation>
    </message>
    <message>
        <source>Input space: nearest class mean (baseline)</source>
        <translation>输入空间：最近类均值（基线）</translation>
    </message>
    <message>
        <source>Prototypical network: input space</source>
        <translation>原型网络：输入空间</translation>
    </message>
    <message>
        <source>MAML</source>
        <translation>MAML</translation>
    </message>
    <message>
        <source>first-order MAML</source>
        <translation>一阶 MAML</translation>
    </message>
    <message>
        <source>Reptile</source>
        <translation>Reptile</translation>
    </message>
    <message>
        <source>pretrained</source>
        <translation>预训练</translation>
    </message>
    <message>
        <source>Test amplitudes up to {0:g}, training went up to {1:g}: tasks with an amplitude above {1:g} are out of distribution.</source>
        <translation>测试振幅最大到 {0:g}，而训练只到 {1:g}：振幅超过 {1:g} 的任务位于训练分布之外。</translation>
    </message>
    <message>
        <source>after {0} gradient step(s)</source>
        <translation>{0} 步梯度更新之后</translation>
    </message>
    <message>
        <source>true function A·sin(x − φ)</source>
        <translation>真实函数 A·sin(x − φ)</translation>
    </message>
    <message>
        <source>{0} support points</source>
        <translation>{0} 个支持点</translation>
    </message>
    <message>
        <source>A = {0:.2f}, φ = {1:.2f} · MSE after {2} step(s): {3}</source>
        <translation>A = {0:.2f}，φ = {1:.2f} · {2} 步后的 MSE：{3}</translation>
    </message>
    <message>
        <source>Evaluating…</source>
        <translation>正在评估…</translation>
    </message>
    <message>
        <source>Evaluate on {0} tasks</source>
        <translation>在 {0} 个任务上评估</translation>
    </message>
    <message>
        <source>Press “Evaluate on {0} tasks”:
each method adapts to {0} new tasks from K points.</source>
        <translation>点击“在 {0} 个任务上评估”：
每种方法都用 K 个点适应 {0} 个新任务。</translation>
    </message>
    <message>
        <source>diverged</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>legend: MSE after 1 → {0} steps · K = {1}, A ≤ {2:g}</source>
        <translation>图例：1 步 → {0} 步后的 MSE · K = {1}，A ≤ {2:g}</translation>
    </message>
    <message>
        <source>· at step {0}</source>
        <translation>· 第 {0} 步时的权重</translation>
    </message>
    <message>
        <source>· untrained</source>
        <translation>· 未训练</translation>
    </message>
    <message>
        <source>predicting 0: MSE {0:.2f}</source>
        <translation>恒预测 0：MSE {0:.2f}</translation>
    </message>
    <message>
        <source>Untrained. Press “Meta-train” to train the four methods on one stream of sinusoid tasks.</source>
        <translation>尚未训练。点击“元训练”，在同一串正弦任务上训练四种方法。</translation>
    </message>
    <message>
        <source>step {0} · running mean over {1} steps</source>
        <translation>第 {0} 步 · {1} 步滑动平均</translation>
    </message>
    <message>
        <source>query accuracy: learned {0:.0%} · input baseline {1:.0%}</source>
        <translation>查询准确率：学到的嵌入 {0:.0%} · 输入空间基线 {1:.0%}</translation>
    </message>
    <message>
        <source>● support  ○ query  ★ prototype  ✕ wrong</source>
        <translation>● 支持点  ○ 查询点  ★ 原型  ✕ 分错</translation>
    </message>
    <message>
        <source>Meta-training: step {0} · query MSE {1} · {2:.1f} steps/s</source>
        <translation>元训练：第 {0} 步 · 查询集 MSE {1} · 每秒 {2:.1f} 步</translation>
    </message>
    <message>
        <source>Prototypical network: episode {0} · loss {1:.3f} · accuracy {2:.0%} · {3:.0f} episodes/s</source>
        <translation>原型网络：第 {0} 个情景 · 损失 {1:.3f} · 准确率 {2:.0%} · 每秒 {3:.0f} 个情景</translation>
    </message>
    <message>
        <source>Resume meta-training</source>
        <translation>继续元训练</translation>
    </message>
    <message>
        <source>Meta-train</source>
        <translation>元训练</translation>
    </message>
    <message>
        <source>Resume training</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Train the embedding</source>
        <translation>训练嵌入网络</translation>
    </message>
    <message>
        <source>{0} meta-steps trained (each: {1} tasks, all four methods)</source>
        <translation>已元训练 {0} 步（每步 {1} 个任务，四种方法同时训练）</translation>
    </message>
    <message>
        <source>{0} episodes trained</source>
        <translation>已训练 {0} 个情景</translation>
    </message>
    <message>
        <source>Sinusoid regression: meta-training</source>
        <translation>正弦回归：元训练</translation>
    </message>
    <message>
        <source>K (support points)</source>
        <translation>K（支持点数）</translation>
    </message>
    <message>
        <source>Inner learning rate α</source>
        <translation>内循环学习率 α</translation>
    </message>
    <message>
        <source>Inner steps (MAML, FOMAML)</source>
        <translation>内循环步数（MAML、一阶 MAML）</translation>
    </message>
    <message>
        <source>Inner steps (Reptile)</source>
        <translation>内循环步数（Reptile）</translation>
    </message>
    <message>
        <source>Meta batch (tasks)</source>
        <translation>元批次（任务数）</translation>
    </message>
    <message>
        <source>Meta learning rate β</source>
        <translation>元学习率 β</translation>
    </message>
    <message>
        <source>Test task</source>
        <translation>测试任务</translation>
    </message>
    <message>
        <source>Largest amplitude</source>
        <translation>最大振幅</translation>
    </message>
    <message>
        <source>Task seed</source>
        <translation>任务种子</translation>
    </message>
    <message>
        <source>Show earlier steps</source>
        <translation>显示之前的各步</translation>
    </message>
    <message>
        <source>Methods shown</source>
        <translation>显示的方法</translation>
    </message>
    <message>
        <source>Prototypical networks</source>
        <translation>原型网络</translation>
    </message>
    <message>
        <source>Task family</source>
        <translation>任务类型</translation>
    </message>
    <message>
        <source>N (classes)</source>
        <translation>N（类别数）</translation>
    </message>
    <message>
        <source>K (shots per class)</source>
        <translation>K（每类样本数）</translation>
    </message>
    <message>
        <source>Episode seed</source>
        <translation>情景种子</translation>
    </message>
    <message>
        <source>Input regions</source>
        <translation>输入空间区域</translation>
    </message>
    <message>
        <source>blobs</source>
        <translation>团簇</translation>
    </message>
    <message>
        <source>rings</source>
        <translation>同心环</translation>
    </message>
    <message>
        <source>stretched blobs</source>
        <translation>拉伸的团簇</translation>
    </message>
    <message>
        <source>learned: nearest prototype after embedding</source>
        <translation>学到的：嵌入后最近的原型</translation>
    </message>
    <message>
        <source>baseline: nearest class mean in the input</source>
        <translation>基线：输入空间中最近的类均值</translation>
    </message>
    <message>
        <source>Start over</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>Every method back to the same initial weights; the training so far is dropped</source>
        <translation>每种方法都回到同一组初始权重；丢弃目前的训练</translation>
    </message>
    <message>
        <source>New task</source>
        <translation>新任务</translation>
    </message>
    <message>
        <source>Reset points</source>
        <translation>重置点</translation>
    </message>
    <message>
        <source>New episode</source>
        <translation>新情景</translation>
    </message>
    <message>
        <source>earlier steps</source>
        <translation>之前的各步</translation>
    </message>
    <message>
        <source>In the main view: drag a support point to move it, click on empty space to add one, right-click a point to remove it.</source>
        <translation>在主视图中：拖动支持点可移动它，在空白处单击可添加一个点，右键单击一个点可删除它。</translation>
    </message>
    <message>
        <source>Each method adapts to {0} new tasks (K points each) and is scored on the whole curve after 0 … {1} steps</source>
        <translation>每种方法适应 {0} 个新任务（每个任务 K 个点），并在 0 … {1} 步后按整条曲线计算误差</translation>
    </message>
    <message>
        <source>adaptation steps</source>
        <translation>适应步数</translation>
    </message>
    <message>
        <source>MSE on the whole curve</source>
        <translation>整条曲线上的 MSE</translation>
    </message>
    <message>
        <source>meta-step</source>
        <translation>元训练步</translation>
    </message>
    <message>
        <source>query MSE</source>
        <translation>查询集 MSE</translation>
    </message>
    <message>
        <source>embedding f(x)₁</source>
        <translation>嵌入 f(x)₁</translation>
    </message>
    <message>
        <source>embedding f(x)₂</source>
        <translation>嵌入 f(x)₂</translation>
    </message>
</context>
<context>
    <name>ODETab</name>
    <message>
        <source>Vector field and trajectories</source>
        <translation>向量场与轨迹</translation>
    </message>
    <message>
        <source>Function evaluations per step</source>
        <translation>每步的函数求值次数</translation>
    </message>
    <message>
        <source>Adaptive solver steps</source>
        <translation>自适应求解器的步</translation>
    </message>
    <message>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>Adjoint method against direct backpropagation</source>
        <translation>伴随法与直接反向传播对比</translation>
    </message>
    <message>
        <source>Spiral: the true trajectory, the noisy observations and the fit</source>
        <translation>螺旋线：真实轨迹、带噪声的观测与拟合结果</translation>
    </message>
    <message>
        <source>Decision regions and held-out points</source>
        <translation>决策区域与留出数据点</translation>
    </message>
    <message>
        <source>Density p_t and samples at t</source>
        <translation>时刻 t 的密度 p_t 与样本</translation>
    </message>
    <message>
        <source> +adj</source>
        <translation> +伴随</translation>
    </message>
    <message>
        <source>{0}, step {1:g}</source>
        <translation>{0}，步长 {1:g}</translation>
    </message>
    <message>
        <source> + adjoint</source>
        <translation> + 伴随法</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>t = {0:.2f} of {1:g}</source>
        <extracomment>(session key, step or None, solver settings or None): a change reached a session per session: [(step, solver label)] — the solver from that step on what was last handed to each session (solver settings, learning rate) the user&apos;s start points per task (state coordinates at the animation&apos;s start)</extracomment>
        <translation>t = {0:.2f}（共 {1:g}）</translation>
    </message>
    <message>
        <source>true spiral</source>
        <translation>真实螺旋线</translation>
    </message>
    <message>
        <source>other start points</source>
        <translation>其他起点</translation>
    </message>
    <message>
        <source>learned, from the true y0</source>
        <translation>学到的轨迹，从真实 y0 出发</translation>
    </message>
    <message>
        <source>class {0}</source>
        <translation>类别 {0}</translation>
    </message>
    <message>
        <source>samples</source>
        <translation>样本</translation>
    </message>
    <message>
        <source>your start points</source>
        <translation>你的起点</translation>
    </message>
    <message>
        <source>t = {0:.2f} · arrows: f(y), the same at every t · click to start a trajectory</source>
        <translation>t = {0:.2f} · 箭头：f(y)，在所有 t 上都相同 · 单击可开始一条轨迹</translation>
    </message>
    <message>
        <source>t = {0:.2f} · arrows: f(t, h) in the first two coordinates, the other {1} at 0</source>
        <translation>t = {0:.2f} · 箭头：前两个坐标上的 f(t, h)，其余 {1} 个坐标取 0</translation>
    </message>
    <message>
        <source>t = {0:.2f} · arrows: f(t, h); trajectories never cross</source>
        <translation>t = {0:.2f} · 箭头：f(t, h)；轨迹永不相交</translation>
    </message>
    <message>
        <source>t = {0:.2f} · arrows: −f(t, z), the way the samples move, from the base (t = 1) to the data (t = 0)</source>
        <translation>t = {0:.2f} · 箭头：−f(t, z)，即样本移动的方向：从基分布（t = 1）到数据（t = 0）</translation>
    </message>
    <message>
        <source>noisy observations</source>
        <translation>带噪声的观测</translation>
    </message>
    <message>
        <source>true trajectory</source>
        <translation>真实轨迹</translation>
    </message>
    <message>
        <source>learned trajectory</source>
        <translation>学到的轨迹</translation>
    </message>
    <message>
        <source>mean L1 {0:.3f} (trivial: constant y0 {1:.3f}, zero {2:.3f}) · NFE {3}</source>
        <translation>平均 L1 {0:.3f}（平凡预测：恒为 y0 {1:.3f}，恒为零 {2:.3f}）· NFE {3}</translation>
    </message>
    <message>
        <source>misclassified</source>
        <translation>分类错误</translation>
    </message>
    <message>
        <source> · {0} augmented dimensions</source>
        <translation> · {0} 个增广维度</translation>
    </message>
    <message>
        <source>held-out accuracy {0:.1%}</source>
        <translation>留出集准确率 {0:.1%}</translation>
    </message>
    <message>
        <source>density p_t(x)</source>
        <translation>密度 p_t(x)</translation>
    </message>
    <message>
        <source>p_t at t = {0:.2f} · held-out NLL {1:.3f} nats (floor {2:.3f}) · mass on the grid {3:.2f}</source>
        <translation>t = {0:.2f} 时的 p_t · 留出集 NLL {1:.3f} 奈特（下界 {2:.3f}）· 网格上的总质量 {3:.2f}</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>被接受</translation>
    </message>
    <message>
        <source>The solver could not finish this solve.</source>
        <translation>求解器未能完成这次求解。</translation>
    </message>
    <message>
        <source>accepted step</source>
        <translation>被接受的步</translation>
    </message>
    <message>
        <source>rejected step</source>
        <translation>被拒绝的步</translation>
    </message>
    <message>
        <source>{0}: {1} accepted, {2} rejected · NFE {3}</source>
        <translation>{0}：接受 {1}，拒绝 {2} · NFE {3}</translation>
    </message>
    <message>
        <source>{0}: {1} accepted and {2} rejected steps in one solve of the current model over [{3:g}, {4:g}]; NFE {5}</source>
        <translation>{0}：当前模型在 [{3:g}, {4:g}] 上的一次求解中，接受 {1} 步、拒绝 {2} 步；NFE {5}</translation>
    </message>
    <message>
        <source>{0}: every step is accepted: {1} · NFE {2}</source>
        <translation>{0}：每一步都被接受：{1} 步 · NFE {2}</translation>
    </message>
    <message>
        <source>{0} steps on a fixed grid: every step is accepted ({1} steps of at most {2:g} over [{3:g}, {4:g}]); NFE {5}</source>
        <translation>{0} 在固定网格上走步：每一步都被接受（在 [{3:g}, {4:g}] 上共 {1} 步，步长至多 {2:g}）；NFE {5}</translation>
    </message>
    <message>
        <source>untrained, step 0: {0} fwd, {1} bwd · {2}; press “Train”</source>
        <translation>未训练，第 0 步：前向 {0} 次，反向 {1} 次 · {2}；点击“训练”</translation>
    </message>
    <message>
        <source>Press “Train” to see
the evaluations of f
in every training step.</source>
        <translation>点击“训练”后，
这里显示每个训练步中
f 的求值次数。</translation>
    </message>
    <message>
        <source>solver: {0}</source>
        <translation>求解器：{0}</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward (adjoint: its solve)</source>
        <translation>反向（伴随法：其反向求解）</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>step {0}: {1} fwd, {2} bwd · {3}</source>
        <translation>第 {0} 步：前向 {1}，反向 {2} · {3}</translation>
    </message>
    <message>
        <source>step {0}: NFE forward {1}, backward {2} · solver: {3}</source>
        <translation>第 {0} 步：前向 NFE {1}，反向 {2} · 求解器：{3}</translation>
    </message>
    <message>
        <source>Press “Train” to fit the model.</source>
        <translation>点击“训练”来拟合模型。</translation>
    </message>
    <message>
        <source>batch loss</source>
        <translation>批次损失</translation>
    </message>
    <message>
        <source>running mean</source>
        <translation>滑动平均</translation>
    </message>
    <message>
        <source>entropy floor</source>
        <translation>熵下界</translation>
    </message>
    <message>
        <source>untrained, step 0: loss {0:.4f}; press “Train” to fit the model</source>
        <translation>未训练，第 0 步：损失 {0:.4f}；点击“训练”拟合模型</translation>
    </message>
    <message>
        <source>L1 {0:.3f}</source>
        <translation>L1 {0:.3f}</translation>
    </message>
    <message>
        <source>whole trajectory from y0: mean L1 {0:.3f}</source>
        <translation>从 y0 出发的整条轨迹：平均 L1 {0:.3f}</translation>
    </message>
    <message>
        <source>accuracy {0:.1%}</source>
        <translation>准确率 {0:.1%}</translation>
    </message>
    <message>
        <source>floor {0:.3f}</source>
        <translation>下界 {0:.3f}</translation>
    </message>
    <message>
        <source>NLL {0:.3f} nats, floor {1:.3f}</source>
        <translation>NLL {0:.3f} 奈特，下界 {1:.3f}</translation>
    </message>
    <message>
        <source>step {0}: {1:.4f} · {2}</source>
        <translation>第 {0} 步：{1:.4f} · {2}</translation>
    </message>
    <message>
        <source>step {0}: loss {1:.4f} (running mean) · {2}</source>
        <translation>第 {0} 步：损失 {1:.4f}（滑动平均）· {2}</translation>
    </message>
    <message>
        <source>Press “Compare adjoint on/off”</source>
        <translation>点击“比较开/关伴随法”</translation>
    </message>
    <message>
        <source>{0:.0f} ms</source>
        <translation>{0:.0f} 毫秒</translation>
    </message>
    <message>
        <source>{0:.1f} ms</source>
        <translation>{0:.1f} 毫秒</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>NFE bwd</source>
        <translation>反向 NFE</translation>
    </message>
    <message>
        <source>direct</source>
        <translation>直接反传</translation>
    </message>
    <message>
        <source>adjoint</source>
        <translation>伴随法</translation>
    </message>
    <message>
        <source>Δgrad {0:.1e} · step {1}</source>
        <translation>Δ梯度 {0:.1e} · 第 {1} 步</translation>
    </message>
    <message>
        <source>Δgrad {0:.1e} of step {1}; the model is at step {2}, compared again when training stops</source>
        <translation>Δ梯度 {0:.1e}（第 {1} 步）；模型已到第 {2} 步，训练停止后重新比较</translation>
    </message>
    <message>
        <source>relative gradient difference max|Δg|/max|g| = {0:.1e} · memory: tensors kept for the backward pass · NFE forward {1} and {2} · {3} · step {4}</source>
        <translation>梯度相对差异 max|Δg|/max|g| = {0:.1e} · 内存：为反向传播保存的张量 · 前向 NFE 分别为 {1} 和 {2} · {3} · 第 {4} 步</translation>
    </message>
    <message>
        <source> · CUDA peak {0:.1f} MB against {1:.1f} MB</source>
        <translation> · CUDA 峰值 {0:.1f} MB 对比 {1:.1f} MB</translation>
    </message>
    <message>
        <source>Stopped at the NFE cap ({0}): raise it, loosen the tolerances or use rk4.</source>
        <extracomment>the plane&apos;s axes: the state&apos;s two coordinates (the spiral&apos;s y, the classifier&apos;s h, the CNF&apos;s z), symbols the same in every language</extracomment>
        <translation>在 NFE 上限（{0}）处被停止：请提高上限、放宽容差或改用 rk4。</translation>
    </message>
    <message>
        <source>One solve needed more than {0} evaluations of f and was stopped at the cap: the dynamics are stiff or change fast for these tolerances. Raise the cap (NFE cap per solve), loosen the tolerances, or use a fixed-step solver such as rk4.</source>
        <translation>一次求解需要超过 {0} 次 f 的求值，在上限处被停止：在这些容差下动力学是刚性的或变化很快。请提高上限（每次求解的 NFE 上限）、放宽容差，或改用 rk4 等固定步长求解器。</translation>
    </message>
    <message>
        <source>The solver could not finish: {0}</source>
        <translation>求解器未能完成：{0}</translation>
    </message>
    <message>
        <source>{0}, rtol {1}, atol {2}</source>
        <translation>{0}，rtol {1}，atol {2}</translation>
    </message>
    <message>
        <source>Comparing the adjoint method with direct backpropagation…</source>
        <translation>正在比较伴随法与直接反向传播…</translation>
    </message>
    <message>
        <source>The comparison is done.</source>
        <translation>比较已完成。</translation>
    </message>
    <message>
        <source>Training: step {0} · loss {1:.4f} · NFE {2:.0f} forward, {3:.0f} backward · {4:.1f} steps/s</source>
        <translation>训练：第 {0} 步 · 损失 {1:.4f} · NFE 前向 {2:.0f}，反向 {3:.0f} · 每秒 {4:.1f} 步</translation>
    </message>
    <message>
        <source>Stop the comparison</source>
        <translation>停止比较</translation>
    </message>
    <message>
        <source>Compare adjoint on/off</source>
        <translation>比较开/关伴随法</translation>
    </message>
    <message>
        <source>Task and model</source>
        <translation>任务与模型</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Density</source>
        <translation>密度</translation>
    </message>
    <message>
        <source>Hidden units</source>
        <translation>隐藏单元数</translation>
    </message>
    <message>
        <source>Augmented dimensions</source>
        <translation>增广维数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>fit a spiral</source>
        <translation>拟合螺旋线</translation>
    </message>
    <message>
        <source>classify</source>
        <translation>分类</translation>
    </message>
    <message>
        <source>continuous normalizing flow</source>
        <translation>连续归一化流</translation>
    </message>
    <message>
        <source>two moons</source>
        <translation>双月形</translation>
    </message>
    <message>
        <source>circles</source>
        <translation>同心圆</translation>
    </message>
    <message>
        <source>8 gaussians</source>
        <translation>8 个高斯</translation>
    </message>
    <message>
        <source>checkerboard</source>
        <translation>棋盘格</translation>
    </message>
    <message>
        <source>two spirals</source>
        <translation>双螺旋</translation>
    </message>
    <message>
        <source>pinwheel</source>
        <translation>风车</translation>
    </message>
    <message>
        <source>rings</source>
        <translation>同心环</translation>
    </message>
    <message>
        <source>swiss roll</source>
        <translation>瑞士卷</translation>
    </message>
    <message>
        <source>Solver</source>
        <translation>求解器</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>rtol</source>
        <translation>rtol</translation>
    </message>
    <message>
        <source>atol</source>
        <translation>atol</translation>
    </message>
    <message>
        <source>Step size</source>
        <translation>步长</translation>
    </message>
    <message>
        <source>Adjoint method</source>
        <translation>伴随法</translation>
    </message>
    <message>
        <source>NFE cap per solve</source>
        <translation>每次求解的 NFE 上限</translation>
    </message>
    <message>
        <source>dopri5 (adaptive, order 5)</source>
        <translation>dopri5（自适应，5 阶）</translation>
    </message>
    <message>
        <source>bosh3 (adaptive, order 3)</source>
        <translation>bosh3（自适应，3 阶）</translation>
    </message>
    <message>
        <source>rk4 (fixed step)</source>
        <translation>rk4（固定步长）</translation>
    </message>
    <message>
        <source>midpoint (fixed step)</source>
        <translation>midpoint（中点法，固定步长）</translation>
    </message>
    <message>
        <source>euler (fixed step)</source>
        <translation>euler（欧拉法，固定步长）</translation>
    </message>
    <message>
        <source>Changes apply to the running training from its next step on</source>
        <translation>更改从正在进行的训练的下一步起生效</translation>
    </message>
    <message>
        <source>Clear start points</source>
        <translation>清除起点</translation>
    </message>
    <message>
        <source>Click in the plane to start a trajectory there; drag a square to move it</source>
        <translation>在平面上单击，从那里开始一条轨迹；拖动小方块可移动起点</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <source>evaluations of f</source>
        <translation>f 的求值次数</translation>
    </message>
    <message>
        <source>t</source>
        <translation>t</translation>
    </message>
    <message>
        <source>step size |dt|</source>
        <translation>步长 |dt|</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>relative (the larger = 1)</source>
        <translation>相对值（较大者 = 1）</translation>
    </message>
</context>
<context>
    <name>PngExportJob</name>
    <message>
        <source>The view kept changing while the PNG was painted (an animation playing, or the window resized?). Stop it and export again.</source>
        <translation>绘制 PNG 期间视图一直在变化（也许有动画在播放，或窗口大小被调整）。请先让它停下，再重新导出。</translation>
    </message>
</context>
<context>
    <name>PositionalTab</name>
    <message>
        <source>Encoding table PE[pos, j]</source>
        <translation>编码表 PE[pos, j]</translation>
    </message>
    <message>
        <source>Chosen dimensions over positions</source>
        <translation>所选维度随位置的变化</translation>
    </message>
    <message>
        <source>Position similarity PE·PEᵀ</source>
        <translation>位置相似度 PE·PEᵀ</translation>
    </message>
    <message>
        <source>Learning M_k by gradient descent</source>
        <translation>用梯度下降学习 M_k</translation>
    </message>
    <message>
        <source>√d_model·embedding + PE, per token</source>
        <translation>各词元的 √d_model·嵌入 + PE</translation>
    </message>
    <message>
        <source>Encoding</source>
        <translation>编码</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>max_len</source>
        <translation>max_len</translation>
    </message>
    <message>
        <source>base</source>
        <translation>base</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Dimensions</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>Comma-separated dimensions or ranges, e.g. 0, 1, 8-11</source>
        <translation>以英文逗号分隔的维度或范围，例如 0, 1, 8-11</translation>
    </message>
    <message>
        <source>Relative position</source>
        <translation>相对位置</translation>
    </message>
    <message>
        <source>offset k</source>
        <translation>偏移量 k</translation>
    </message>
    <message>
        <source>Show the exact M_k</source>
        <translation>显示精确的 M_k</translation>
    </message>
    <message>
        <source>Show the learned W</source>
        <translation>显示学习到的 W</translation>
    </message>
    <message>
        <source>Show W − M_k</source>
        <translation>显示 W − M_k</translation>
    </message>
    <message>
        <source>Token embeddings</source>
        <translation>词元嵌入</translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>Initialisation</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>N(0, 1) (nn.Embedding default)</source>
        <translation>N(0, 1)（nn.Embedding 默认）</translation>
    </message>
    <message>
        <source>N(0, 1/d_model) (typical when tied to the output layer)</source>
        <translation>N(0, 1/d_model)（与输出层共享权重时的常用做法）</translation>
    </message>
    <message>
        <source>loss / max error (log scale)</source>
        <translation>损失 / 最大误差（对数刻度）</translation>
    </message>
    <message>
        <source>Position similarity PE·PEᵀ (positions sampled every {0})</source>
        <translation>位置相似度 PE·PEᵀ（每隔 {0} 个位置采样）</translation>
    </message>
    <message>
        <source>; {0} tokens beyond max_len left out</source>
        <translation>；超出 max_len 的 {0} 个词元未显示</translation>
    </message>
    <message>
        <source>Nothing learned yet for these parameters: press “Learn M_k by gradient descent”.</source>
        <translation>这些参数下还没有学习结果：请点击“用梯度下降学习 M_k”。</translation>
    </message>
    <message>
        <source>Nothing to learn for k = 0: M_0 is the identity. Choose an offset k ≥ 1.</source>
        <translation>k = 0 时无需学习：M_0 就是单位矩阵。请选择偏移量 k ≥ 1。</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>dimension j</source>
        <translation>维度 j</translation>
    </message>
    <message>
        <source>PE value</source>
        <translation>PE 值</translation>
    </message>
    <message>
        <source>input dimension</source>
        <translation>输入维度</translation>
    </message>
    <message>
        <source>output dimension</source>
        <translation>输出维度</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>RMS over dimensions</source>
        <translation>沿维度的均方根 (RMS)</translation>
    </message>
    <message>
        <source>Learned W (k = {0})</source>
        <translation>学习到的 W (k = {0})</translation>
    </message>
    <message>
        <source>W − M_k (k = {0})</source>
        <translation>W − M_k (k = {0})</translation>
    </message>
    <message>
        <source>Relative-position map M_k, k = {0}</source>
        <translation>相对位置映射 M_k，k = {0}</translation>
    </message>
    <message>
        <source>Stop learning</source>
        <translation>停止学习</translation>
    </message>
    <message>
        <source>Learn M_k by gradient descent</source>
        <translation>用梯度下降学习 M_k</translation>
    </message>
    <message>
        <source>Learning stopped: the encoding parameters changed.</source>
        <translation>学习已停止：编码参数已更改。</translation>
    </message>
    <message>
        <source>Ignored (not a dimension below d_model): {0}</source>
        <translation>已忽略（不是小于 d_model 的维度）：{0}</translation>
    </message>
    <message>
        <source>dim {0}</source>
        <translation>维度 {0}</translation>
    </message>
    <message>
        <source>√d·E</source>
        <translation>√d·E</translation>
    </message>
    <message>
        <source>PE</source>
        <translation>PE</translation>
    </message>
    <message>
        <source>√d·E + PE</source>
        <translation>√d·E + PE</translation>
    </message>
    <message>
        <source>embedding/PE size ratio ≈ {0:.1f}  (device {1})</source>
        <translation>嵌入与 PE 的幅值比 ≈ {0:.1f}  （设备 {1}）</translation>
    </message>
    <message>
        <source>max |M_k·PE[pos] − PE[pos+k]| over {0} positions: {1:.2e}</source>
        <translation>{0} 个位置上的 max |M_k·PE[pos] − PE[pos+k]|：{1:.2e}</translation>
    </message>
    <message>
        <source>pos {0}, dim {1}: {2:+.4f}</source>
        <translation>位置 {0}，维度 {1}：{2:+.4f}</translation>
    </message>
    <message>
        <source>PE[{0}]·PE[{1}] = {2:.3f}  (|Δ| = {3})</source>
        <translation>PE[{0}]·PE[{1}] = {2:.3f}  (|Δ| = {3})</translation>
    </message>
    <message>
        <source>pos {0} → {1}</source>
        <translation>位置 {0} → {1}</translation>
    </message>
    <message>
        <source>Learning M_k: step {0}/{1} · loss {2:.2e} · max error {3:.2e} · {4:.0f} steps/s</source>
        <translation>正在学习 M_k：第 {0}/{1} 步 · 损失 {2:.2e} · 最大误差 {3:.2e} · {4:.0f} 步/秒</translation>
    </message>
    <message>
        <source>training loss (MSE)</source>
        <translation>训练损失 (MSE)</translation>
    </message>
    <message>
        <source>max error, all positions</source>
        <translation>所有位置上的最大误差</translation>
    </message>
    <message>
        <source>exact M_k: max error {0:.1e}</source>
        <translation>精确 M_k：最大误差 {0:.1e}</translation>
    </message>
    <message>
        <source>Step 0: W = 0. Press “Learn M_k by gradient descent” to fit W·PE[pos] ≈ PE[pos+k] with Adam.</source>
        <translation>第 0 步：W = 0。点击“用梯度下降学习 M_k”，用 Adam 拟合 W·PE[pos] ≈ PE[pos+k]。</translation>
    </message>
    <message>
        <source>step {0}: loss {1:.2e}, max |W − M_k| = {2:.2f}</source>
        <translation>第 {0} 步：损失 {1:.2e}，max |W − M_k| = {2:.2f}</translation>
    </message>
</context>
<context>
    <name>PretrainedTab</name>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>(off)</source>
        <translation>（已关闭）</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>avg</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>rollout</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>q (query)</source>
        <translation>q（查询）</translation>
    </message>
    <message>
        <source>k</source>
        <translation>k（键）</translation>
    </message>
    <message>
        <source>q ⊙ k</source>
        <translation>q ⊙ k</translation>
    </message>
    <message>
        <source>q·k/√d</source>
        <translation>q·k/√d</translation>
    </message>
    <message>
        <source>softmax</source>
        <translation>softmax</translation>
    </message>
    <message>
        <source>to [CLS]</source>
        <translation>指向 [CLS]</translation>
    </message>
    <message>
        <source>to [SEP]</source>
        <translation>指向 [SEP]</translation>
    </message>
    <message>
        <source>to punctuation</source>
        <translation>指向标点</translation>
    </message>
    <message>
        <source>to itself</source>
        <translation>指向自身</translation>
    </message>
    <message>
        <source>entropy ÷ ln {0}</source>
        <translation>熵 ÷ ln {0}</translation>
    </message>
    <message>
        <source>Sentence similarity needs an encoder (BERT-style) model.</source>
        <translation>句子相似度需要编码器（BERT 类）模型。</translation>
    </message>
    <message>
        <source>Type 2 to 6 sentences, one per line, in the box on the left.</source>
        <translation>在左侧的文本框中输入 2 到 6 个句子，每行一句。</translation>
    </message>
    <message>
        <source>{0} heads off</source>
        <translation>关闭 {0} 个头</translation>
    </message>
    <message>
        <source>all heads on</source>
        <translation>所有头开启</translation>
    </message>
    <message>
        <source>Cosine similarity of the mean-pooled embeddings; hover a cell.</source>
        <translation>平均池化嵌入的余弦相似度；将鼠标移到格子上查看数值。</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>sampled from</source>
        <translation>采样分布</translation>
    </message>
    <message>
        <source>Next-token probabilities come from a decoder: open a GPT-2 folder with File → Open…</source>
        <translation>下一个词元的概率来自解码器：请用“文件 → 打开…”打开一个 GPT-2 文件夹</translation>
    </message>
    <message>
        <source>probability at T = {0:g}</source>
        <translation>T = {0:g} 时的概率</translation>
    </message>
    <message>
        <source>after top-k / top-p</source>
        <translation>经 top-k / top-p 筛选后</translation>
    </message>
    <message>
        <source>Press Generate: each new token&apos;s attention row appears here.</source>
        <translation>点击“生成”：每个新词元的注意力行会显示在这里。</translation>
    </message>
    <message>
        <source>Generation needs a decoder (GPT-2) model: File → Open…</source>
        <translation>生成需要解码器（GPT-2）模型：文件 → 打开…</translation>
    </message>
    <message>
        <source>layer {0}, head {1}</source>
        <translation>第 {0} 层，头 {1}</translation>
    </message>
    <message>
        <source>Generated: {0}</source>
        <translation>已生成：{0}</translation>
    </message>
    <message>
        <source>{0} tokens generated; row = new token, columns = the text it attended to.</source>
        <translation>已生成 {0} 个词元；行 = 新词元，列 = 它所关注的文本。</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <extracomment>how long the tab is out of sight before its model&apos;s weights are released: long enough for a glance at another tab and back, and reading them again takes 45-55 ms for the bundled model the head mask and the tokens kept belong to the text and model of the moment heatmaps made ahead for each grid: the bundled model&apos;s 12 heads, 5 statistics, 2 similarity matrices, 1 generation</extracomment>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Hugging Face model folders (config.json, model.safetensors, tokenizer.json)</source>
        <translation>Hugging Face 模型文件夹（config.json、model.safetensors、tokenizer.json）</translation>
    </message>
    <message>
        <source>{0} has about {1} parameters and needs about {2} of memory as float32; ArchScope loads models of at most {3} parameters ({4}). The model shown stays.</source>
        <translation>{0} 约有 {1} 个参数，以 float32 存储约需 {2} 内存；ArchScope 最多加载 {3} 个参数（{4}）的模型。当前显示的模型保持不变。</translation>
    </message>
    <message>
        <source>Loading {0} ({1} as float32): {2} %</source>
        <translation>正在加载 {0}（float32 占 {1}）：{2} %</translation>
    </message>
    <message>
        <source>Loaded {0}: {1} layers × {2} heads, {3} parameters.</source>
        <translation>已加载 {0}：{1} 层 × {2} 个头，{3} 个参数。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Generating: token {0} of {1}</source>
        <translation>正在生成：第 {0} 个词元，共 {1} 个</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Generated {0} tokens.</source>
        <translation>已生成 {0} 个词元。</translation>
    </message>
    <message>
        <source>All layers × heads, head average, rollout</source>
        <translation>所有层 × 头、头平均与注意力展开</translation>
    </message>
    <message>
        <source>Per head (Clark et al. 2019): rows = layers, columns = heads</source>
        <translation>按头统计（Clark 等，2019）：行 = 层，列 = 头</translation>
    </message>
    <message>
        <source>Sentence similarity: with the heads masked, and all heads on</source>
        <translation>句子相似度：掩码后的头与所有头开启</translation>
    </message>
    <message>
        <source>Next token: probabilities, and what top-k / top-p keep</source>
        <translation>下一个词元：概率，以及 top-k / top-p 保留的词元</translation>
    </message>
    <message>
        <source>Generation: each new token&apos;s attention over the text so far</source>
        <translation>生成：每个新词元对已有文本的注意力</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>&lt;b&gt;“{0}”&lt;/b&gt; · {1} {2} · {3} layers × {4} heads · d_model {5} · {6} parameters ({7} as float32)</source>
        <translation>&lt;b&gt;“{0}”&lt;/b&gt; · {1} {2} · {3} 层 × {4} 个头 · d_model {5} · {6} 个参数（float32 占 {7}）</translation>
    </message>
    <message>
        <source>Loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <source>No model loaded.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <source>The bundled model {0} is not installed. Install it with:
{1}
or open a Hugging Face model folder with File → Open…</source>
        <translation>内置模型 {0} 尚未安装。请用以下命令安装：
{1}
或者用“文件 → 打开…”打开一个 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>For a decoder (GPT-2): open its folder with File → Open… (“{0}” is an encoder).</source>
        <translation>用于解码器（GPT-2）：请用“文件 → 打开…”打开它的文件夹（“{0}”是编码器）。</translation>
    </message>
    <message>
        <source>optional: BERT&apos;s second sentence</source>
        <translation>可选：BERT 的第二个句子</translation>
    </message>
    <message>
        <source>this model reads one text</source>
        <translation>此模型只读取一段文本</translation>
    </message>
    <message>
        <source>Layer {0}: every head (rows = queries, columns = keys)</source>
        <translation>第 {0} 层：所有头（行 = 查询，列 = 键）</translation>
    </message>
    <message>
        <source>Head view, layer {0}: line opacity = weight</source>
        <translation>头视图，第 {0} 层：线的不透明度 = 权重</translation>
    </message>
    <message>
        <source>Neuron view: one head for one query</source>
        <translation>神经元视图：一个头对一个查询</translation>
    </message>
    <message>
        <source>Neuron view: layer {0}, head {1}, query “{2}”</source>
        <translation>神经元视图：第 {0} 层，头 {1}，查询“{2}”</translation>
    </message>
    <message>
        <source>head {0}: query {1} “{2}” → key {3} “{4}”: {5:.3f}</source>
        <translation>头 {0}：查询 {1}“{2}” → 键 {3}“{4}”：{5:.3f}</translation>
    </message>
    <message>
        <source>Hover a token to keep only its lines; click a head above to hide it.</source>
        <translation>将鼠标移到词元上只显示它的连线；点击上方的头可将其隐藏。</translation>
    </message>
    <message>
        <source>query {0} “{1}”</source>
        <translation>查询 {0}“{1}”</translation>
    </message>
    <message>
        <source>key {0} “{1}”</source>
        <translation>键 {0}“{1}”</translation>
    </message>
    <message>
        <source> nats</source>
        <translation> 奈特</translation>
    </message>
    <message>
        <source>layer {0}, head {1}{2}: {3}</source>
        <translation>第 {0} 层，头 {1}{2}：{3}</translation>
    </message>
    <message>
        <source>(all heads on: {0:.3f})</source>
        <translation>（所有头开启时：{0:.3f}）</translation>
    </message>
    <message>
        <source>kept</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>dropped by top-k / top-p</source>
        <translation>被 top-k / top-p 丢弃</translation>
    </message>
    <message>
        <source>“{0}”: probability {1:.3f}, {2}, sampled with {3:.3f}</source>
        <translation>“{0}”：概率 {1:.3f}，{2}，采样概率 {3:.3f}</translation>
    </message>
    <message>
        <source>new token {0} “{1}” → “{2}”: {3:.3f}</source>
        <translation>新词元 {0}“{1}” → “{2}”：{3:.3f}</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Open model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <source>A Hugging Face folder with config.json, model.safetensors and tokenizer.json: BERT, RoBERTa, DistilBERT or GPT-2.</source>
        <translation>包含 config.json、model.safetensors 和 tokenizer.json 的 Hugging Face 文件夹：BERT、RoBERTa、DistilBERT 或 GPT-2。</translation>
    </message>
    <message>
        <source>Bundled model</source>
        <translation>内置模型</translation>
    </message>
    <message>
        <source>Go back to {0}, the model that ships with ArchScope.</source>
        <translation>回到 {0}，即随 ArchScope 一起提供的模型。</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>Sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <source>Second</source>
        <translation>第二句</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Tokens (click one to mask it out of attention):</source>
        <translation>词元（点击一个词元可将其从注意力中屏蔽）：</translation>
    </message>
    <message>
        <source>Shown</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Query (neuron view)</source>
        <translation>查询（神经元视图）</translation>
    </message>
    <message>
        <source>Head masks</source>
        <translation>头掩码</translation>
    </message>
    <message>
        <source>Click a head to switch it off (dark); a row&apos;s label switches the whole layer; the corner turns every head back on.</source>
        <translation>点击一个头可将其关闭（变暗）；点击行标签可开关整层；点击左上角可重新开启所有头。</translation>
    </message>
    <message>
        <source>Sentence similarity</source>
        <translation>句子相似度</translation>
    </message>
    <message>
        <source>2 to 6 sentences, one per line: their embeddings&apos; cosine similarity with the heads masked above.</source>
        <translation>2 到 6 个句子，每行一句：在上方头掩码作用下，它们嵌入的余弦相似度。</translation>
    </message>
    <message>
        <source>Next token and generation (decoders)</source>
        <translation>下一个词元与生成（解码器）</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>top-p</source>
        <translation>top-p</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Performer (m = {0})</source>
        <translation>Performer（m = {0}）</translation>
    </message>
    <message>
        <source>Linformer (k = {0})</source>
        <translation>Linformer（k = {0}）</translation>
    </message>
    <message>
        <source>sparse window (w = {0})</source>
        <translation>稀疏窗口（w = {0}）</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>Approximate attention is offered for encoder (BERT-style) models.</source>
        <translation>近似注意力只对编码器（BERT 类）模型提供。</translation>
    </message>
    <message>
        <source>Approximate attention inside the model</source>
        <translation>模型内部的近似注意力</translation>
    </message>
    <message>
        <source>Layer {0}, head {1}: exact vs {2}</source>
        <translation>第 {0} 层，头 {1}：精确 vs {2}</translation>
    </message>
    <message>
        <source>approx.</source>
        <translation>近似</translation>
    </message>
    <message>
        <source>Mean row TV distance ½·Σ|a − e|: this head {0:.3f}, all heads {1:.3f}; hover a cell.</source>
        <translation>平均行总变差距离 ½·Σ|a − e|：本头 {0:.3f}，所有头 {1:.3f}；将鼠标移到格子上查看。</translation>
    </message>
    <message>
        <source>query “{0}” → key “{1}”: exact {2:.3f}, approximate {3:.3f}</source>
        <translation>查询“{0}” → 键“{1}”：精确 {2:.3f}，近似 {3:.3f}</translation>
    </message>
    <message>
        <source>Sentence similarity under approximate attention</source>
        <translation>近似注意力下的句子相似度</translation>
    </message>
    <message>
        <source>Sentence similarity: exact vs {0}</source>
        <translation>句子相似度：精确 vs {0}</translation>
    </message>
    <message>
        <source>max |Δ cos| = {0:.3f} (cosine of the mean-pooled embeddings); hover a cell.</source>
        <translation>max |Δ cos| = {0:.3f}（平均池化嵌入的余弦）；将鼠标移到格子上查看。</translation>
    </message>
    <message>
        <source>exact {0:.3f}, approximate {1:.3f}, Δ {2:+.3f}</source>
        <translation>精确 {0:.3f}，近似 {1:.3f}，Δ {2:+.3f}</translation>
    </message>
    <message>
        <source>Attention inside the model</source>
        <translation>模型内部的注意力</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>exact softmax</source>
        <translation>精确 softmax</translation>
    </message>
    <message>
        <source>Performer (m features)</source>
        <translation>Performer（m 个特征）</translation>
    </message>
    <message>
        <source>Linformer (k rows)</source>
        <translation>Linformer（k 行）</translation>
    </message>
    <message>
        <source>sparse: local window w</source>
        <translation>稀疏：局部窗口 w</translation>
    </message>
    <message>
        <source>Replaces softmax attention in every layer and head of the encoder; the two views on the right compare it with the exact model.</source>
        <translation>替换编码器每一层、每个头中的 softmax 注意力；右侧两个视图将它与精确模型对比。</translation>
    </message>
    <message>
        <source>Performer: number of random features m (drawn from the seed below)</source>
        <translation>Performer：随机特征数 m（由下方的种子抽取）</translation>
    </message>
    <message>
        <source>Linformer: keys and values mean-pooled to k rows</source>
        <translation>Linformer：键和值平均池化为 k 行</translation>
    </message>
    <message>
        <source>Sparse: each token sees the tokens within w/2 of itself</source>
        <translation>稀疏：每个词元只看到距离自己 w/2 以内的词元</translation>
    </message>
    <message>
        <source>Sentence similarity: exact vs {0}, max |Δ cos| = {1:.3f}</source>
        <translation>句子相似度：精确 vs {0}，max |Δ cos| = {1:.3f}</translation>
    </message>
</context>
<context>
    <name>Sessions</name>
    <message>
        <source>Saved on {0}, opened here on {1}.</source>
        <translation>保存于 {0}，此处在 {1} 上打开。</translation>
    </message>
    <message>
        <source>Transformer trained to reverse digits</source>
        <translation>训练好的 Transformer：反转数字序列</translation>
    </message>
    <message>
        <source>RealNVP flow trained on two moons</source>
        <translation>训练好的 RealNVP 流：双月数据</translation>
    </message>
    <message>
        <source>GCN trained on Zachary&apos;s karate club</source>
        <translation>训练好的 GCN：Zachary 空手道俱乐部</translation>
    </message>
    <message>
        <source>Open &amp;session…</source>
        <translation>打开会话(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Save session of this tab…</source>
        <translation>保存此标签页的会话(&amp;S)…</translation>
    </message>
    <message>
        <source>Save session of &amp;all tabs…</source>
        <translation>保存所有标签页的会话(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Examples</source>
        <translation>示例(&amp;E)</translation>
    </message>
    <message>
        <source>ArchScope sessions (*.archscope)</source>
        <translation>ArchScope 会话 (*.archscope)</translation>
    </message>
    <message>
        <source>Saved the session {0}</source>
        <translation>已保存会话 {0}</translation>
    </message>
    <message>
        <source>Saved the session {0} ({1} tabs opened so far)</source>
        <translation>已保存会话 {0}（至今打开过的 {1} 个标签页）</translation>
    </message>
    <message>
        <source>Save session</source>
        <extracomment>the longest sequence text a session may hold (the line edit&apos;s own limit)</extracomment>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>Opening {0} once PyTorch has loaded…</source>
        <translation>PyTorch 加载完成后将打开 {0}…</translation>
    </message>
    <message>
        <source>Opened the session {0}</source>
        <translation>已打开会话 {0}</translation>
    </message>
</context>
<context>
    <name>Tabs</name>
    <message>
        <source>Positional encoding</source>
        <extracomment>the modules the tab&apos;s first trace imports (its models, and through them PyG, scipy, tokenizers...), imported off the GUI thread before it is built for a user who opens it once PyTorch is ready (PyG alone held the GUI thread 1.3 s; ``TabPages``)</extracomment>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Transformer</source>
        <translation>Transformer</translation>
    </message>
    <message>
        <source>Pretrained models</source>
        <translation>预训练模型</translation>
    </message>
    <message>
        <source>Efficient attention</source>
        <translation>高效注意力</translation>
    </message>
    <message>
        <source>Graph generation</source>
        <translation>图生成</translation>
    </message>
    <message>
        <source>Normalizing flows</source>
        <translation>标准化流</translation>
    </message>
    <message>
        <source>Graph neural networks</source>
        <translation>图神经网络</translation>
    </message>
    <message>
        <source>Meta-learning</source>
        <translation>元学习</translation>
    </message>
    <message>
        <source>Neural ODEs</source>
        <translation>神经常微分方程</translation>
    </message>
</context>
<context>
    <name>Tour</name>
    <message>
        <source>Guided tour</source>
        <translation>导览</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Step {k} of {n}</source>
        <translation>第 {k} 步，共 {n} 步</translation>
    </message>
</context>
<context>
    <name>TrainingTab</name>
    <message>
        <source>{0} steps trained</source>
        <translation>已训练 {0} 步</translation>
    </message>
    <message>
        <source>Resume training</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>To keep memory bounded, the model {0} ({1} steps trained) was let go: this tab keeps its {2} most recently used models.</source>
        <extracomment>the job the Train button starts and stops</extracomment>
        <translation>为控制内存占用，已释放模型 {0}（已训练 {1} 步）：本页只保留最近使用的 {2} 个模型。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
</context>
<context>
    <name>TransformerSteps</name>
    <message>
        <source>token ids</source>
        <extracomment>the step-through&apos;s steps (``models.transformer.forward_steps`` keys, without the &quot;self.&quot; / &quot;cross.&quot; block prefix)</extracomment>
        <translation>词元 id</translation>
    </message>
    <message>
        <source>embedding lookup</source>
        <translation>查嵌入表</translation>
    </message>
    <message>
        <source>× √d_model</source>
        <translation>× √d_model</translation>
    </message>
    <message>
        <source>+ positional encoding</source>
        <translation>+ 位置编码</translation>
    </message>
    <message>
        <source>through the layers before this one</source>
        <translation>经过此前各层</translation>
    </message>
    <message>
        <source>Q = x·W_q</source>
        <translation>Q = x·W_q</translation>
    </message>
    <message>
        <source>K = x·W_k</source>
        <translation>K = x·W_k</translation>
    </message>
    <message>
        <source>V = x·W_v</source>
        <translation>V = x·W_v</translation>
    </message>
    <message>
        <source>K = memory·W_k</source>
        <translation>K = memory·W_k</translation>
    </message>
    <message>
        <source>V = memory·W_v</source>
        <translation>V = memory·W_v</translation>
    </message>
    <message>
        <source>split heads: Q of this head</source>
        <translation>拆分多头：本头的 Q</translation>
    </message>
    <message>
        <source>split heads: K of this head</source>
        <translation>拆分多头：本头的 K</translation>
    </message>
    <message>
        <source>split heads: V of this head</source>
        <translation>拆分多头：本头的 V</translation>
    </message>
    <message>
        <source>scores Q·Kᵀ/√d_k</source>
        <translation>得分 Q·Kᵀ/√d_k</translation>
    </message>
    <message>
        <source>mask (green = may attend)</source>
        <translation>掩码（绿色 = 可关注）</translation>
    </message>
    <message>
        <source>masked scores (blocked = −∞, blank)</source>
        <translation>掩码后的得分（屏蔽 = −∞，留白）</translation>
    </message>
    <message>
        <source>softmax → attention weights</source>
        <translation>softmax → 注意力权重</translation>
    </message>
    <message>
        <source>weighted sum of V</source>
        <translation>V 的加权和</translation>
    </message>
    <message>
        <source>combine heads</source>
        <translation>合并多头</translation>
    </message>
    <message>
        <source>output projection W_o</source>
        <translation>输出投影 W_o</translation>
    </message>
    <message>
        <source>Add &amp; Norm</source>
        <translation>残差相加与归一化（Add &amp; Norm）</translation>
    </message>
    <message>
        <source>encoder output (memory)</source>
        <translation>编码器输出（memory）</translation>
    </message>
    <message>
        <source>FFN: ReLU(x·W₁ + b₁)</source>
        <translation>前馈网络：ReLU(x·W₁ + b₁)</translation>
    </message>
    <message>
        <source>FFN: ·W₂ + b₂</source>
        <translation>前馈网络：·W₂ + b₂</translation>
    </message>
    <message>
        <source>Add &amp; Norm = layer output</source>
        <translation>Add &amp; Norm = 本层输出</translation>
    </message>
    <message>
        <source>final linear → logits</source>
        <translation>最终线性层 → logits</translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
</context>
<context>
    <name>TransformerTab</name>
    <message>
        <source>Steps and training</source>
        <translation>逐步与训练</translation>
    </message>
    <message>
        <source>Ablations</source>
        <translation>消融实验</translation>
    </message>
    <message>
        <source>positional encoding off</source>
        <translation>关闭位置编码</translation>
    </message>
    <message>
        <source>no 1/√d_k scaling</source>
        <translation>不除以 √d_k</translation>
    </message>
    <message>
        <source>no residual connections</source>
        <translation>去掉残差连接</translation>
    </message>
    <message>
        <source>BatchNorm instead of LayerNorm</source>
        <translation>用 BatchNorm 代替 LayerNorm</translation>
    </message>
    <message>
        <source>Switch off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Two encoder stacks with the shown model&apos;s sizes and the same seeded weights read the same input; the second has this idea switched off. Solid: baseline; dashed: ablated.</source>
        <translation>两个与当前模型尺寸相同、由同一随机种子初始化（权重相同）的编码器堆栈读入同一个输入；第二个关闭了这个设计。实线：基线；虚线：消融后的模型。</translation>
    </message>
    <message>
        <source>Ablations: one idea switched off, beside the baseline</source>
        <translation>消融实验：关闭一个设计，与基线对比</translation>
    </message>
    <message>
        <source>Ablations: {0} (dashed) beside the baseline (solid), {1} layers, d_model {2}, d_k {3}</source>
        <translation>消融实验：{0}（虚线）与基线（实线）对比，{1} 层，d_model {2}，d_k {3}</translation>
    </message>
    <message>
        <source>0 drawn at 10⁻⁹</source>
        <translation>0 画在 10⁻⁹ 处</translation>
    </message>
    <message>
        <source>with PE</source>
        <translation>有位置编码</translation>
    </message>
    <message>
        <source>without PE</source>
        <translation>无位置编码</translation>
    </message>
    <message>
        <source>depth (0 = embeddings, n = after layer n)</source>
        <translation>深度（0 = 嵌入，n = 第 n 层之后）</translation>
    </message>
    <message>
        <source>max |f(Px) − P f(x)|</source>
        <translation>max |f(Px) − P f(x)|</translation>
    </message>
    <message>
        <source>position (output of the last layer)</source>
        <translation>位置（最后一层的输出）</translation>
    </message>
    <message>
        <source>|f(Px) − P f(x)| per position</source>
        <translation>每个位置的 |f(Px) − P f(x)|</translation>
    </message>
    <message>
        <source>Input permuted: max |f(Px) − P f(x)| = {0:.3g} with PE, {1:.2g} without (float32 rounding): without PE the encoder is permutation-equivariant.</source>
        <translation>打乱输入：有位置编码时 max |f(Px) − P f(x)| = {0:.3g}，无位置编码时为 {1:.2g}（float32 舍入误差）：没有位置编码，编码器是置换等变的。</translation>
    </message>
    <message>
        <source>÷√d_k</source>
        <translation>÷√d_k</translation>
    </message>
    <message>
        <source>not scaled</source>
        <translation>不缩放</translation>
    </message>
    <message>
        <source>largest softmax weight of a query row</source>
        <translation>查询行中最大的 softmax 权重</translation>
    </message>
    <message>
        <source>fraction of rows</source>
        <translation>行所占比例</translation>
    </message>
    <message>
        <source>‖∂L/∂S‖ ÷√d_k</source>
        <translation>‖∂L/∂S‖ ÷√d_k</translation>
    </message>
    <message>
        <source>‖∂L/∂S‖ not scaled</source>
        <translation>‖∂L/∂S‖ 不缩放</translation>
    </message>
    <message>
        <source>‖∂L/∂W_q‖ ÷√d_k</source>
        <translation>‖∂L/∂W_q‖ ÷√d_k</translation>
    </message>
    <message>
        <source>‖∂L/∂W_q‖ not scaled</source>
        <translation>‖∂L/∂W_q‖ 不缩放</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>gradient norm (S: scores)</source>
        <translation>梯度范数（S：分数）</translation>
    </message>
    <message>
        <source>d_k = {0}: mean largest weight {1:.2f} → {2:.2f}; rows above 0.9: {3:.0%} → {4:.0%}; mean ‖∂L/∂S‖ {5:.3g} → {6:.3g}; mean ‖∂L/∂W_q‖ {7:.3g} → {8:.3g} (scaled → not scaled).</source>
        <translation>d_k = {0}：最大权重的均值 {1:.2f} → {2:.2f}；超过 0.9 的行 {3:.0%} → {4:.0%}；‖∂L/∂S‖ 均值 {5:.3g} → {6:.3g}；‖∂L/∂W_q‖ 均值 {7:.3g} → {8:.3g}（缩放 → 不缩放）。</translation>
    </message>
    <message>
        <source>with residuals</source>
        <translation>有残差连接</translation>
    </message>
    <message>
        <source>without residuals</source>
        <translation>无残差连接</translation>
    </message>
    <message>
        <source>‖∂L/∂(layer input)‖</source>
        <translation>‖∂L/∂(层的输入)‖</translation>
    </message>
    <message>
        <source>‖∂L/∂(layer&apos;s parameters)‖</source>
        <translation>‖∂L/∂(层的参数)‖</translation>
    </message>
    <message>
        <source>Parameter-gradient norm of layer 1 / layer {0}: {1:.2f} with residuals, {2:.2f} without; ‖∂L/∂(input of layer 1)‖: {3:.3g} → {4:.3g}.</source>
        <translation>第 1 层与第 {0} 层参数梯度范数之比：有残差连接时 {1:.2f}，无残差连接时 {2:.2f}；‖∂L/∂(第 1 层的输入)‖：{3:.3g} → {4:.3g}。</translation>
    </message>
    <message>
        <source>Size study: step {0}/{1} · loss {2:.3f} (baseline {3:.3f})</source>
        <translation>规模研究：第 {0}/{1} 步 · 损失 {2:.3f}（基线 {3:.3f}）</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Layers per stack</source>
        <translation>每个堆叠的层数</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>Dropout</translation>
    </message>
    <message>
        <source>Activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>LayerNorm</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>post-norm (the paper&apos;s)</source>
        <translation>后置归一化（论文）</translation>
    </message>
    <message>
        <source>pre-norm (GPT-2&apos;s)</source>
        <translation>前置归一化（GPT-2）</translation>
    </message>
    <message>
        <source>Encoder and decoder layers each; a one-stack model gets twice as many, as the tab&apos;s models do</source>
        <translation>编码器和解码器各有这么多层；单堆叠模型的层数是它的两倍，与本页的模型一致</translation>
    </message>
    <message>
        <source>Post-norm: LayerNorm(x + F(x)). Pre-norm: x + F(LayerNorm(x)), with a last LayerNorm after each stack</source>
        <translation>后置归一化：LayerNorm(x + F(x))。前置归一化：x + F(LayerNorm(x))，并在每个堆叠之后再加一个 LayerNorm</translation>
    </message>
    <message>
        <source>Train this variant and the course&apos;s baseline (2 + 2 layers, d_model 64, 4 heads, d_ff 128, ReLU, post-norm) side by side from one seed</source>
        <translation>从同一个随机种子出发，并排训练这个变体和课程的基线（2 + 2 层，d_model 64，4 个头，d_ff 128，ReLU，后置归一化）</translation>
    </message>
    <message>
        <source>Train both</source>
        <translation>训练两者</translation>
    </message>
    <message>
        <source>BatchNorm</source>
        <translation>BatchNorm</translation>
    </message>
    <message>
        <source>padding columns added to the batch</source>
        <translation>给批次添加的填充列数</translation>
    </message>
    <message>
        <source>max |change| of the real tokens&apos; outputs</source>
        <translation>真实词元输出的最大 |变化|</translation>
    </message>
    <message>
        <source>mean, LayerNorm</source>
        <translation>均值，LayerNorm</translation>
    </message>
    <message>
        <source>mean, BatchNorm</source>
        <translation>均值，BatchNorm</translation>
    </message>
    <message>
        <source>std, LayerNorm</source>
        <translation>标准差，LayerNorm</translation>
    </message>
    <message>
        <source>std, BatchNorm</source>
        <translation>标准差，BatchNorm</translation>
    </message>
    <message>
        <source>position in the typed sequence, padded</source>
        <translation>输入序列（含填充）中的位置</translation>
    </message>
    <message>
        <source>first Add &amp; Norm: over features</source>
        <translation>第一个 Add &amp; Norm：在特征上统计</translation>
    </message>
    <message>
        <source>With more padding in the batch the real tokens&apos; outputs change by at most {0:.2g} with LayerNorm (rounding), {1:.3g} with BatchNorm (batch statistics include the padding).</source>
        <translation>批次中的填充增多时，真实词元的输出最多改变：LayerNorm {0:.2g}（舍入误差），BatchNorm {1:.3g}（批统计量包含了填充）。</translation>
    </message>
    <message>
        <source>All layers × heads, head average, rollout</source>
        <translation>所有层 × 头、头平均与注意力展开（rollout）</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Text of at most {0} characters: a–z, space and . , ! ? &apos; -</source>
        <extracomment>one model per (architecture, tokenizer, task), the 6 most recently used (issue 19); a change of them stops the training, so the shown one is the trained one the controls as the training job reads them (a frozen request, swapped whole) the last sequence typed that the model could read: what the views show</extracomment>
        <translation>最多 {0} 个字符的文本：a–z、空格以及 . , ! ? &apos; -（仅限英文字母）</translation>
    </message>
    <message>
        <source>At most {0} words of the model&apos;s vocabulary: {1}</source>
        <translation>最多 {0} 个词，须来自模型的词表：{1}</translation>
    </message>
    <message>
        <source>Symbols 0 to {0}, at most {1} of them, e.g. 3 1 4 1 5</source>
        <translation>符号 0 到 {0}，最多 {1} 个，例如 3 1 4 1 5</translation>
    </message>
    <message>
        <source>head {0}</source>
        <translation>头 {0}</translation>
    </message>
    <message>
        <source>raw scores QKᵀ/√d_k</source>
        <translation>原始分数 QKᵀ/√d_k</translation>
    </message>
    <message>
        <source>mask (grey = blocked)</source>
        <translation>掩码（灰色 = 屏蔽）</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>masked scores</source>
        <translation>掩码后的分数</translation>
    </message>
    <message>
        <source>softmax</source>
        <translation>softmax</translation>
    </message>
    <message>
        <source>model output: {0}</source>
        <translation>模型输出：{0}</translation>
    </message>
    <message>
        <source>{0} rows of this head have every key blocked: the course&apos;s masked_fill(mask == 0, -1e9) gives them 1/{1} per key (ours: 0).</source>
        <translation>这个头有 {0} 行的所有键都被屏蔽：课程的 masked_fill(mask == 0, -1e9) 给它们每个键 1/{1}（我们的实现：0）。</translation>
    </message>
    <message>
        <source>{0} rows of this head have every key blocked (their weights are set to 0).</source>
        <translation>该头有 {0} 行的所有键都被屏蔽（这些行的权重设为 0）。</translation>
    </message>
    <message>
        <source>Course&apos;s code: the same weights as ours (max |Δweight| {0:.1e}).</source>
        <translation>课程代码：权重与我们的相同（最大 |Δ权重| {0:.1e}）。</translation>
    </message>
    <message>
        <source>Course&apos;s code: max |Δweight| {0:.3f} vs ours, rows {1}.</source>
        <translation>课程代码：与我们的相比最大 |Δ权重| {0:.3f}，在第 {1} 行。</translation>
    </message>
    <message>
        <source>Rows {0} fully blocked: 1/{1} = {2:.3f} each (ours 0).</source>
        <translation>第 {0} 行整行被屏蔽：每个键 1/{1} = {2:.3f}（我们的为 0）。</translation>
    </message>
    <message>
        <source>Course&apos;s SDPA example, head {0}: each query sees only later keys, max |Δweight| {1:.3f}; as written (no key): TypeError.</source>
        <translation>课程的 SDPA 示例，头 {0}：每个查询只看到后面的键，最大 |Δ权重| {1:.3f}；按原样（缺少键参数）：TypeError。</translation>
    </message>
    <message>
        <source>avg</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>rollout</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>uniform guess: loss ln {0} = {1:.2f}</source>
        <translation>均匀猜测：损失 ln {0} = {1:.2f}</translation>
    </message>
    <message>
        <source>Untrained: no steps yet.
Press “Train” to train this model live.</source>
        <translation>尚未训练：还没有任何训练步。
点击“训练”即可实时训练此模型。</translation>
    </message>
    <message>
        <source>0 errors (no place on a log scale)</source>
        <translation>0 个错误（对数刻度上无处可画）</translation>
    </message>
    <message>
        <source>{0}, layer {1}: every head (rows = queries, columns = keys)</source>
        <translation>{0}，第 {1} 层：所有头（行 = 查询，列 = 键）</translation>
    </message>
    <message>
        <source>Head {0} step by step</source>
        <translation>头 {0} 的逐步计算</translation>
    </message>
    <message>
        <source>head {0}: query {1} “{2}” → key {3} “{4}”: {5:.3f}</source>
        <translation>头 {0}：查询 {1}“{2}” → 键 {3}“{4}”：{5:.3f}</translation>
    </message>
    <message>
        <source>Head view, layer {0}: line opacity = weight</source>
        <translation>头视图，第 {0} 层：连线的不透明度 = 权重</translation>
    </message>
    <message>
        <source>Hover a token to keep only its lines; click a head above to hide it.</source>
        <translation>鼠标悬停在某个词元上可只保留它的连线；点击上方的某个头可将其隐藏。</translation>
    </message>
    <message>
        <source>query {0} “{1}”</source>
        <translation>查询 {0} “{1}”</translation>
    </message>
    <message>
        <source>key {0} “{1}”</source>
        <translation>键 {0} “{1}”</translation>
    </message>
    <message>
        <source>keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>屏蔽</translation>
    </message>
    <message>
        <source>Rows are the tokens of batch item 0; per-head steps show head {0}. Hover a cell for its value.</source>
        <translation>行是批次第 0 项的词元；按头计算的步骤显示第 {0} 个头。鼠标悬停可读出数值。</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>One forward pass, step by step</source>
        <translation>逐步查看一次前向传播</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>One forward pass, step by step: {0} layer {1}, head {2}</source>
        <translation>逐步查看一次前向传播：{0}第 {1} 层，第 {2} 个头</translation>
    </message>
    <message>
        <source>Training {0}: step {1} · loss {2:.3f} · token accuracy {3:.1%} · held-out sequences right {4} · {5:.0f} steps/s</source>
        <translation>正在训练 {0} 任务：第 {1} 步 · 损失 {2:.3f} · 词元准确率 {3:.1%} · 留出集序列正确率 {4} · {5:.0f} 步/秒</translation>
    </message>
    <message>
        <source>untrained model</source>
        <translation>模型尚未训练</translation>
    </message>
    <message>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>token error (training batch)</source>
        <translation>词元错误率（训练批次）</translation>
    </message>
    <message>
        <source>held-out sequence error</source>
        <translation>留出集序列错误率</translation>
    </message>
    <message>
        <source>{0} steps trained; held-out sequences right: {1}</source>
        <translation>已训练 {0} 步；留出集序列正确率：{1}</translation>
    </message>
    <message>
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
    <message>
        <source>Model and training</source>
        <translation>模型与训练</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>encoder–decoder (Transformer)</source>
        <translation>编码器–解码器（Transformer）</translation>
    </message>
    <message>
        <source>encoder-only (BERT-style)</source>
        <translation>仅编码器（BERT 式）</translation>
    </message>
    <message>
        <source>decoder-only (GPT-style)</source>
        <translation>仅解码器（GPT 式）</translation>
    </message>
    <message>
        <source>digits</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>characters (free text)</source>
        <translation>字符（自由文本）</translation>
    </message>
    <message>
        <source>words (free text)</source>
        <translation>单词（自由文本）</translation>
    </message>
    <message>
        <source>copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>reverse</source>
        <translation>反转</translation>
    </message>
    <message>
        <source>sort</source>
        <translation>排序</translation>
    </message>
    <message>
        <source>shift (rotate by one)</source>
        <translation>移位（循环移动一位）</translation>
    </message>
    <message>
        <source>ArchScope models saved as .pt; sessions open with File → Open session… (*.pt)</source>
        <translation>以 .pt 保存的 ArchScope 模型；会话文件请用“文件 → 打开会话…”打开 (*.pt)</translation>
    </message>
    <message>
        <source>{0} is a session: open it with File → Open session….</source>
        <translation>{0} 是会话文件：请用“文件 → 打开会话…”打开。</translation>
    </message>
    <message>
        <source>Opened a {0} model trained for {1} steps. “Save session…” keeps it as a session file (.archscope).</source>
        <translation>已打开 {0} 任务的模型，已训练 {1} 步。点击“保存会话…”可将其存为会话文件（.archscope）。</translation>
    </message>
    <message>
        <source>Save session…</source>
        <translation>保存会话…</translation>
    </message>
    <message>
        <source>Save this tab as a session file (.archscope): the model, its optimizer state, the curves and the input. Open it with File → Open session…; File → Open… still opens models saved as .pt.</source>
        <translation>将本标签页保存为会话文件（.archscope）：包括模型、优化器状态、训练曲线和输入。用“文件 → 打开会话…”打开；“文件 → 打开…”仍可打开以 .pt 保存的模型。</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>序列</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>随机生成</translation>
    </message>
    <message>
        <source>Pad to length</source>
        <translation>填充至长度</translation>
    </message>
    <message>
        <source>Decoding step</source>
        <translation>解码步数</translation>
    </message>
    <message>
        <source>whole output</source>
        <translation>完整输出</translation>
    </message>
    <message>
        <source>Show the decoder after it has produced this many tokens: one more query row per step</source>
        <translation>显示解码器生成这么多词元后的状态：每一步多一行查询</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>▸ start (&lt;bos&gt;)   ■ end (&lt;eos&gt;)   · padding (&lt;pad&gt;)</source>
        <translation>▸ 起始 (&lt;bos&gt;)   ■ 结束 (&lt;eos&gt;)   · 填充 (&lt;pad&gt;)</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Step-through of one forward pass</source>
        <translation>逐步查看一次前向传播</translation>
    </message>
    <message>
        <source>Previous step</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Next step</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder masked self-attention</source>
        <translation>解码器掩码自注意力</translation>
    </message>
    <message>
        <source>cross-attention (decoder → encoder)</source>
        <translation>交叉注意力（解码器 → 编码器）</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>padding mask</source>
        <translation>填充掩码</translation>
    </message>
    <message>
        <source>look-ahead mask (decoder)</source>
        <translation>前瞻掩码（解码器）</translation>
    </message>
    <message>
        <source>as the course writes it</source>
        <translation>按课程代码的写法</translation>
    </message>
    <message>
        <source>Compute the attention as the chapter&apos;s code does, with this model&apos;s weights: masked_fill(mask == 0, -1e9), the decoder mask logical_and(tgt_padding_mask.transpose(-2, -1), look_ahead_mask) and, for decoder self-attention, its F.scaled_dot_product_attention example. The read-out of the heads compares it with ours.</source>
        <translation>用这个模型的权重，按课程代码的方式计算注意力：masked_fill(mask == 0, -1e9)、解码器掩码 logical_and(tgt_padding_mask.transpose(-2, -1), look_ahead_mask)，以及（解码器自注意力中）课程的 F.scaled_dot_product_attention 示例。各头视图的读数把它与我们的实现作比较。</translation>
    </message>
    <message>
        <source>Model sizes</source>
        <translation>模型规模</translation>
    </message>
    <message>
        <source>{0} + {0} layers</source>
        <translation>{0} + {0} 层</translation>
    </message>
    <message>
        <source>{0} layers</source>
        <translation>{0} 层</translation>
    </message>
    <message>
        <source>{0} heads</source>
        <translation>{0} 个头</translation>
    </message>
    <message>
        <source>dropout {0:g}</source>
        <translation>dropout {0:g}</translation>
    </message>
    <message>
        <source>pre-norm</source>
        <translation>前置归一化</translation>
    </message>
    <message>
        <source>post-norm</source>
        <translation>后置归一化</translation>
    </message>
    <message>
        <source>the baseline&apos;s own sizes</source>
        <translation>与基线相同的规模</translation>
    </message>
    <message>
        <source>Model sizes: a variant beside the baseline</source>
        <translation>模型规模：变体与基线对比</translation>
    </message>
    <message>
        <source>Model sizes: {0} (dashed) beside the baseline (solid), as initialised</source>
        <translation>模型规模：{0}（虚线）与基线（实线）对比，初始化时</translation>
    </message>
    <message>
        <source>Model sizes: {0} (dashed) beside the baseline (solid), step {1} of {2}</source>
        <translation>模型规模：{0}（虚线）与基线（实线）对比，第 {1} 步，共 {2} 步</translation>
    </message>
    <message>
        <source>Building the variant and the baseline as initialised…</source>
        <translation>正在构建初始化时的变体和基线…</translation>
    </message>
    <message>
        <source>Decoded every {0} steps while they train</source>
        <translation>训练时每 {0} 步解码一次</translation>
    </message>
    <message>
        <source>As initialised, baseline → variant: {0:,} → {1:,} weights · loss on the first batch {2:.3g} → {3:.3g}. Press “Train both” to train them {4} steps side by side.</source>
        <translation>初始化时，基线 → 变体：权重 {0:,} → {1:,} 个 · 第一个批次上的损失 {2:.3g} → {3:.3g}。点击“训练两者”把它们并排训练 {4} 步。</translation>
    </message>
    <message>
        <source>Baseline → variant: {0:,} → {1:,} weights · {2:.1f} → {3:.1f} ms a step (CPU {4:.1f} → {5:.1f}) · loss at step {6}: {7:.3g} → {8:.3g}</source>
        <translation>基线 → 变体：权重 {0:,} → {1:,} 个 · 每步 {2:.1f} → {3:.1f} ms（CPU {4:.1f} → {5:.1f}）· 第 {6} 步的损失：{7:.3g} → {8:.3g}</translation>
    </message>
    <message>
        <source>held-out sequences right: {0:.0%} → {1:.0%}</source>
        <translation>留出序列正确率：{0:.0%} → {1:.0%}</translation>
    </message>
    <message>
        <source>baseline: {0}</source>
        <translation>基线：{0}</translation>
    </message>
    <message>
        <source>baseline</source>
        <translation>基线</translation>
    </message>
    <message>
        <source>variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>training loss (log scale)</source>
        <translation>训练损失（对数刻度）</translation>
    </message>
    <message>
        <source>held-out sequences right</source>
        <translation>留出序列的正确率</translation>
    </message>
    <message>
        <source>loss / error (log scale)</source>
        <translation>损失 / 错误率（对数刻度）</translation>
    </message>
</context>
</TS>
